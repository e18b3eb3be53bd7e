import { readAuditKey } from "../../src/audit/audit-key.js";
import type { AuditKey } from "../../src/audit/line-proof.js";
import { harnessPaths } from "../../src/app/paths.js";

/** The audit key a daemon made in `harnessDir` (throws when there is none). */
export async function harnessKey(harnessDir: string): Promise<AuditKey> {
  const read = await readAuditKey(harnessPaths(harnessDir).auditKey);
  if (read.kind !== "key") throw new Error(`no audit key in ${harnessDir}`);
  return read.key;
}
