import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/audit/audit-log.js";
import { ownerHalt, ownerResume } from "../../src/owner/owner-switch.js";
import { envKillSwitch } from "../../src/send/kill-switch.js";

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), "owner-switch-"));
  const haltPath = join(dir, "state", "HALT");
  const audited: AuditEntry[] = [];
  const deps = {
    haltPath,
    audit: { append: async (e: readonly AuditEntry[]) => void audited.push(...e) },
    now: () => Date.parse("2030-01-01T00:00:00Z"),
  };
  const killSwitch = envKillSwitch({ processValue: undefined, envFilePath: join(dir, ".env"), ownerHaltPath: haltPath });
  return { dir, haltPath, audited, deps, killSwitch };
}

const actor = { user_id: 42, channel: "command" as const, update_id: 7 };

describe("ownerHalt and ownerResume", () => {
  it("halt creates HALT (and its directory) and audits; the kill switch halts until resume", async () => {
    const t = await setup();
    expect(await ownerHalt(t.deps, actor)).toEqual({ action: "halt", changed: true });
    expect(await t.killSwitch.check()).toEqual({ halted: true, reason: "halted by the owner (/halt or draft-review halt)" });
    expect(JSON.parse(await readFile(t.haltPath, "utf8"))).toEqual({ at: "2030-01-01T00:00:00.000Z", channel: "command", user_id: 42 });
    expect((await stat(t.haltPath)).mode & 0o777).toBe(0o600);
    expect(await ownerHalt(t.deps, { ...actor, update_id: 8 })).toEqual({ action: "halt", changed: false });
    expect(await ownerResume(t.deps, actor)).toEqual({ action: "resume", changed: true });
    expect(await t.killSwitch.check()).toEqual({ halted: false });
    expect(await ownerResume(t.deps, actor)).toEqual({ action: "resume", changed: false });
    expect(t.audited).toEqual([
      { kind: "owner_halt", user_id: 42, channel: "command", changed: true, update_id: 7 },
      { kind: "owner_halt", user_id: 42, channel: "command", changed: false, update_id: 8 },
      { kind: "owner_resume", user_id: 42, channel: "command", changed: true, update_id: 7 },
      { kind: "owner_resume", user_id: 42, channel: "command", changed: false, update_id: 7 },
    ]);
  });

  it("a resume records the halt's end before HALT goes, also when its start never reached the record", async () => {
    const t = await setup();
    await ownerHalt(t.deps, actor);
    const recordPath = join(t.dir, "state", "halt_record.json");
    // The start's write failed (or the record was lost): the resume still leaves a halt that ended now.
    await rm(recordPath, { force: true });
    expect(await ownerResume(t.deps, actor)).toEqual({ action: "resume", changed: true });
    expect(JSON.parse(await readFile(recordPath, "utf8"))).toMatchObject({ ended_at: "2030-01-01T00:00:00.000Z" });
  });

  it("a halt whose audit write fails still halts (fail closed); a resume whose audit fails does not resume", async () => {
    const t = await setup();
    const failing = { ...t.deps, audit: { append: async () => Promise.reject(new Error("disk full")) } };
    await expect(ownerHalt(failing, actor)).rejects.toThrow("disk full");
    expect((await t.killSwitch.check()).halted).toBe(true);
    await expect(ownerResume(failing, actor)).rejects.toThrow("disk full");
    expect((await t.killSwitch.check()).halted).toBe(true);
  });
});
