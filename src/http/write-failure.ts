import { StoreBrokenError } from "../store/store-errors.js";

/** errno codes that mean the disk refused a write (full, read-only, failing, no permission). */
const WRITE_CODES = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS", "EACCES", "EPERM", "EFBIG", "EBADF"]);

/**
 * The cause, for the operator, when `err` is the store (or the audit log)
 * failing to write; null for anything else (a bug stays a 500). Looks through
 * the error's `cause` chain for a StoreBrokenError or a disk errno code.
 */
export function storeWriteFailure(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof StoreBrokenError || (typeof code === "string" && WRITE_CODES.has(code))) {
      return (err as Error).message;
    }
  }
  return null;
}
