import { errCode, errMessage, readFileNoFollow, writeFileDurably } from "../store/fs-util.js";
import { checkLine, CRC_SUFFIX_BYTES, encodeLine } from "../store/line-codec.js";
import { indexSnapshotSchema, type IndexSnapshot } from "./audit-index.js";
import { checkpointProof, signCheckpoint, type AuditKey } from "./line-proof.js";

/**
 * The audit index's checkpoint file: one checksummed line (the store's line
 * format), written with the one durable temp-file write, so it is either the
 * old checkpoint or the whole new one. It is only a shortcut: when it is
 * missing, damaged or does not match the audit log, the log is read in full.
 * With the audit key it carries a proof (line-proof.ts) like our audit lines:
 * a checkpoint written by anyone else is not used, so it can never bring into
 * the index what the log's proven lines do not say.
 */

/** What reading the checkpoint gave. */
export type CheckpointRead =
  | { readonly ok: true; readonly snapshot: IndexSnapshot }
  | { readonly ok: false; readonly missing: boolean; readonly problem: string };

/** Largest checkpoint read back; a bigger file is not ours. */
const MAX_BYTES = 64 << 20;

/**
 * The checkpoint's line, with its proof when there is a key: made from the index as it stands now, so
 * the file can be written later (beside new appends) and still say exactly this.
 */
export function encodeCheckpoint(snapshot: IndexSnapshot, key: AuditKey | null): string {
  const json = JSON.stringify(snapshot);
  // Parsed back, the signed text serialises to itself: encodeLine adds only its checksum.
  const record = key === null ? snapshot : (JSON.parse(signCheckpoint(key, json)) as object);
  return encodeLine(record);
}

/**
 * The checkpoint file's writes, one after another: a write under way ends before the next starts, so
 * the later checkpoint is the one left, however long a write takes (they run beside the log's appends).
 */
export class CheckpointWrites {
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly path: string) {}

  /** Writes a checkpoint line (encodeCheckpoint) atomically and durably, after the one under way. */
  write(line: string): Promise<void> {
    const written = this.last.then(async () => {
      await writeFileDurably(this.path, line, { mode: 0o600 });
    });
    this.last = written.catch(() => {});
    return written;
  }

  /** Resolves once the write under way, if any, has ended (well or not). */
  idle(): Promise<void> {
    return this.last;
  }
}

/** The checkpoint's JSON text (its checksum checked and taken off), or why there is none to read. */
async function readCheckpointJson(path: string): Promise<{ ok: true; json: Buffer } | Extract<CheckpointRead, { ok: false }>> {
  let buf: Buffer;
  try {
    buf = await readFileNoFollow(path, MAX_BYTES);
  } catch (err) {
    if (errCode(err) === "ENOENT") return { ok: false, missing: true, problem: "there is none yet" };
    return { ok: false, missing: false, problem: `it cannot be read: ${errMessage(err)}` };
  }
  const end = buf.length > 0 && buf[buf.length - 1] === 0x0a ? buf.length - 1 : buf.length;
  const bad = checkLine(buf, 0, end);
  if (bad !== null) return { ok: false, missing: false, problem: `it is damaged (${bad})` };
  return { ok: true, json: Buffer.concat([buf.subarray(0, end - CRC_SUFFIX_BYTES), Buffer.from("}")]) };
}

/**
 * Whether the checkpoint shows that an audit key existed in this HARNESS_DIR, read without the key
 * (it is missing): a whole checkpoint that carries a proof (only ever written with the key) or names
 * the key anchor. Says what it shows, or null. HARNESS_DIR is the daemon's alone, so unlike a line of
 * the shared audit log, no other writer can make this evidence.
 */
export async function checkpointShowsKey(path: string): Promise<string | null> {
  const read = await readCheckpointJson(path);
  if (!read.ok) return null;
  if (checkpointProof(null, read.json) !== "none") return `${path} was written with it`;
  try {
    const parsed = indexSnapshotSchema.safeParse(JSON.parse(read.json.toString("utf8")));
    if (parsed.success && parsed.data.anchor !== null) return `${path} names its key anchor`;
  } catch {
    // not JSON: it shows nothing
  }
  return null;
}

/** Reads and checks the checkpoint (checksum, the proof when there is a key, then schema). */
export async function loadCheckpoint(path: string, key: AuditKey | null): Promise<CheckpointRead> {
  const read = await readCheckpointJson(path);
  if (!read.ok) return read;
  const { json } = read;
  if (key !== null) {
    const proof = checkpointProof(key, json);
    if (proof !== "valid")
      return {
        ok: false,
        missing: false,
        problem:
          proof === "none"
            ? "it carries no proof (written before the audit key existed, or by another program)"
            : "its proof does not verify: it was not written with this HARNESS_DIR's audit key",
      };
  }
  let value: unknown;
  try {
    value = JSON.parse(json.toString("utf8"));
  } catch (err) {
    return { ok: false, missing: false, problem: `it is not JSON (${errMessage(err)})` };
  }
  const parsed = indexSnapshotSchema.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      missing: false,
      problem: `it is not a checkpoint this version reads (${parsed.error.issues[0]?.message ?? "invalid"})`,
    };
  return { ok: true, snapshot: parsed.data };
}
