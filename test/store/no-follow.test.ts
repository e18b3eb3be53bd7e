import { mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openAppend, readNoFollow, writeFileDurably } from "../../src/store/fs-util.js";

// Issue 12 item 4: files in HARNESS_DIR are never opened through a symbolic link.

describe("opening HARNESS_DIR files without following symbolic links", () => {
  it("openAppend, readNoFollow and writeFileDurably refuse a planted link and leave its target alone", async () => {
    const dir = await mkdtemp(join(tmpdir(), "nofollow-"));
    const victim = join(dir, "victim.txt");
    await writeFile(victim, "not yours\n");
    await symlink(victim, join(dir, "swarm.jsonl"));
    await expect(openAppend(join(dir, "swarm.jsonl"), 0o600)).rejects.toThrow(/ELOOP/);
    await expect(readNoFollow(join(dir, "swarm.jsonl"))).rejects.toThrow(/ELOOP/);
    await symlink(victim, join(dir, "daemon.lock"));
    expect(await writeFileDurably(join(dir, "daemon.lock"), "123\n", { mode: 0o600, place: "if-absent" })).toBe(false);
    expect(await readFile(victim, "utf8")).toBe("not yours\n");
  });
});
