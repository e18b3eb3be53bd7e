import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { harnessPaths } from "../../src/app/paths.js";

/** The daemon's audit source, as another writer would claim it. */
export const DAEMON_SOURCE = "telegram-draft-for-review";

/** sha256 hex of a line's text: the next line's prev_hash. */
export const lineSha = (line: string): string => createHash("sha256").update(line).digest("hex");

/** The audit log's raw lines. */
export async function rawAuditLines(harnessDir: string): Promise<string[]> {
  return (await readFile(harnessPaths(harnessDir).audit, "utf8")).split("\n").filter((l) => l !== "");
}

/**
 * Lines that claim the daemon's source, each continuing the sha256 chain from `last` (seq + 1, prev_hash its
 * sha256), as another process that read the log could make them: no proof.
 */
export function chainedLines(last: string, entries: ReadonlyArray<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const line = JSON.stringify({
      ts: new Date().toISOString(),
      source: DAEMON_SOURCE,
      seq: JSON.parse(last).seq + 1,
      prev_hash: lineSha(last),
      ...entry,
    });
    out.push(line);
    last = line;
  }
  return out;
}
