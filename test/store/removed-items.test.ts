import { readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RemovedItemsStore } from "../../src/store/removed-items.js";
import { textSha256 } from "../../src/send/approval.js";
import { tempDir } from "./helpers.js";

// Issue 25 point 6: what redaction removed is kept aside, privately, for 🔓 Keep the removed items.

const ORIGINAL = "Call me on +61 412 345 678 or sam@northwind.io.";
const kept = (draft_id: string) => ({ draft_id, redacted_sha256: textSha256("Call me on [phone] or [email]."), text: ORIGINAL });

describe("RemovedItemsStore", () => {
  it("keeps a draft's original in a private file (0600 in a 0700 directory), reads it back, drops it", async () => {
    const dir = join(await tempDir(), "removed_items");
    const store = new RemovedItemsStore(dir);
    expect(await store.read("d_a")).toMatchObject({ ok: false, reason: "missing" });
    await store.keep(kept("d_a"));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, "d_a.json"))).mode & 0o777).toBe(0o600);
    expect(await store.read("d_a")).toEqual({ ok: true, kept: kept("d_a") });
    await store.drop("d_a");
    await store.drop("d_a");
    expect(await readdir(dir)).toEqual([]);
    expect(await store.read("d_a")).toMatchObject({ ok: false, reason: "missing" });
  });

  it("answers a damaged file as damaged, never with a wrong text or a throw", async () => {
    const dir = join(await tempDir(), "removed_items");
    const store = new RemovedItemsStore(dir);
    await store.keep(kept("d_a"));
    const path = join(dir, "d_a.json");
    const whole = await readFile(path, "utf8");
    await writeFile(path, whole.slice(0, whole.length / 2));
    expect(await store.read("d_a")).toMatchObject({ ok: false, reason: "damaged", detail: expect.stringMatching(/not JSON/) });
    await writeFile(path, "");
    expect(await store.read("d_a")).toMatchObject({ ok: false, reason: "damaged" });
    await writeFile(path, JSON.stringify({ ...kept("d_a"), redacted_sha256: "nope" }));
    expect(await store.read("d_a")).toMatchObject({ ok: false, reason: "damaged" });
    // Another draft's file under this name (copied over it) is not this draft's original.
    await writeFile(path, JSON.stringify(kept("d_b")));
    expect(await store.read("d_a")).toMatchObject({ ok: false, reason: "damaged", detail: expect.stringMatching(/names draft d_b/) });
    // A planted link is not followed.
    await writeFile(join(dir, "elsewhere.json"), JSON.stringify(kept("d_c")));
    await symlink(join(dir, "elsewhere.json"), join(dir, "d_c.json"));
    expect(await store.read("d_c")).toMatchObject({ ok: false, reason: "damaged" });
    // Nor a name that is no draft id.
    expect(await store.read("../d_a")).toMatchObject({ ok: false, reason: "missing" });
    await expect(store.keep(kept("../escape"))).rejects.toThrow(/cannot name a file/);
  });

  it("sweeps the files no draft needs and the temp files a crash left; an absent directory is none", async () => {
    const dir = join(await tempDir(), "removed_items");
    const store = new RemovedItemsStore(dir);
    expect(await store.sweep(() => false)).toBe(0);
    for (const id of ["d_live", "d_done", "d_gone"]) await store.keep(kept(id));
    await writeFile(join(dir, ".d_x.json.123.abcd.tmp"), "half");
    expect(await store.sweep((id) => id === "d_live")).toBe(3);
    expect(await readdir(dir)).toEqual(["d_live.json"]);
  });
});
