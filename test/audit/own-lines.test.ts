import { appendFile, open } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditIndex } from "../../src/audit/audit-index.js";
import { OwnLinesSinceScan } from "../../src/audit/own-lines.js";
import { tempDir } from "../store/helpers.js";

/** A log file holding `text`, open for reading, and an index scanned to its start. */
async function logWith(text: string) {
  const path = join(await tempDir(), "swarm.jsonl");
  await appendFile(path, text);
  return { path, fh: await open(path, "r"), index: new AuditIndex() };
}

describe("our lines since the last scan", () => {
  it("move the index to the end without a read when the file ends where our last line did", async () => {
    const { fh, index } = await logWith("ours 1\nours 2\n");
    const ours = new OwnLinesSinceScan(true);
    ours.appended(2, [7, 13]);
    expect(await ours.skipRead(index, fh, 14)).toBe(true);
    expect([index.scannedTo, index.linesBefore, index.head]).toEqual([14, 2, [7, 13]]);
    await fh.close();
  });

  it("need a read when the file goes on past our last line, or when something not ours may follow the scan", async () => {
    const { path, fh, index } = await logWith("ours 1\n");
    const ours = new OwnLinesSinceScan(true);
    ours.appended(1, [0, 6]);
    await appendFile(path, "another writer's line\n");
    expect(await ours.skipRead(index, fh, 7)).toBe(false);
    ours.lost();
    expect(await ours.skipRead(index, fh, 29)).toBe(false);
    expect(index.scannedTo).toBe(0);
    await fh.close();
  });
});
