import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointWrites } from "../../src/audit/checkpoint.js";
import { tempDir } from "../store/helpers.js";

describe("the checkpoint file's writes", () => {
  it("run one after another: the last checkpoint asked for is the one left, and idle waits for it", async () => {
    const path = join(await tempDir(), "audit_index.json");
    const writes = new CheckpointWrites(path);
    const all = Array.from({ length: 20 }, (_, i) => writes.write(`{"n":${i}}\n`));
    await writes.idle();
    expect(await readFile(path, "utf8")).toBe('{"n":19}\n');
    await Promise.all(all);
  });

  it("go on after one that failed", async () => {
    const dir = join(await tempDir(), "not-yet");
    const writes = new CheckpointWrites(join(dir, "audit_index.json"));
    await expect(writes.write("{}\n")).rejects.toThrow();
    await mkdir(dir);
    await writes.write('{"n":1}\n');
    expect(await readFile(join(dir, "audit_index.json"), "utf8")).toBe('{"n":1}\n');
  });
});
