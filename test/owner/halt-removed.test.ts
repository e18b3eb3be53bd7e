import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditLog } from "../../src/audit/audit-log.js";
import { CLI_AUDIT_SOURCE, DEFAULT_AUDIT_SOURCE } from "../../src/audit/sources.js";
import { auditHaltRemoval } from "../../src/owner/halt-removed.js";
import { ownerHalt, ownerResume } from "../../src/owner/owner-switch.js";
import { watchKillSwitch } from "../../src/send/halt-watch.js";
import { envKillSwitch } from "../../src/send/kill-switch.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { readOurs } from "../audit/entries.js";
import { memoryLog, tempDir } from "../store/helpers.js";
import { T0 } from "../support/drafts.js";

// Issue 26 point 2 (review): HALT removed by hand ends the owner's halt in the audit log too, once, with a proven line.

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

/** The daemon's audit log of `dir` (key, checkpoint), or the CLI's. */
async function openLog(dir: string, source = DEFAULT_AUDIT_SOURCE): Promise<AuditLog> {
  const audit = await AuditLog.open({
    path: join(dir, "swarm.jsonl"),
    log: memoryLog(),
    source,
    ...(source === DEFAULT_AUDIT_SOURCE ? { checkpointPath: join(dir, "audit_index.json") } : {}),
    key: { path: join(dir, "audit_key"), create: source === DEFAULT_AUDIT_SOURCE },
  });
  opened.push(audit);
  return audit;
}

const removals = async (dir: string, source = DEFAULT_AUDIT_SOURCE) =>
  (await readOurs(join(dir, "swarm.jsonl"), source)).filter((l) => l.entry?.kind === "owner_resume");

describe("auditHaltRemoval", () => {
  it("audits the end of a /halt whose HALT was removed by hand, once; a /resume needs no such line", async () => {
    const dir = await tempDir();
    const audit = await openLog(dir);
    const haltPath = join(dir, "HALT");
    const hook = auditHaltRemoval({ haltPath, audit });
    const deps = { haltPath, audit, now: () => Date.now() };
    await ownerHalt(deps, { user_id: 1, channel: "command" });
    await hook();
    expect(await removals(dir)).toHaveLength(0);
    await rm(haltPath);
    await hook();
    await hook();
    expect((await removals(dir)).map((l) => l.entry)).toEqual([{ kind: "owner_resume", user_id: null, channel: "file", changed: true }]);
    expect(audit.index.ownerHaltLasting()).toBe(false);
    // /resume audits its own line before HALT goes: nothing more.
    await ownerHalt(deps, { user_id: 1, channel: "command" });
    await hook();
    await ownerResume(deps, { user_id: 1, channel: "command" });
    await hook();
    expect((await removals(dir)).map((l) => l.entry?.kind === "owner_resume" && l.entry.channel)).toEqual(["file", "command"]);
  });

  it("a `draft-review halt` the daemon has not read yet, HALT then removed by hand: the log is read to its end and the halt ended", async () => {
    const dir = await tempDir();
    const audit = await openLog(dir);
    const haltPath = join(dir, "HALT");
    const hook = auditHaltRemoval({ haltPath, audit });
    const cli = await openLog(dir, CLI_AUDIT_SOURCE);
    await ownerHalt({ haltPath, audit: cli, now: () => Date.now() }, { user_id: null, channel: "cli" });
    await hook(); // sees HALT
    expect(audit.index.ownerHaltLasting()).toBe(false); // the CLI's line is not read yet
    await rm(haltPath);
    await hook();
    expect((await removals(dir)).map((l) => l.entry)).toEqual([{ kind: "owner_resume", user_id: null, channel: "file", changed: true }]);
    // A `draft-review resume` instead writes its own line: none of ours follows.
    await ownerHalt({ haltPath, audit: cli, now: () => Date.now() }, { user_id: null, channel: "cli" });
    await hook();
    await ownerResume({ haltPath, audit: cli, now: () => Date.now() }, { user_id: null, channel: "cli" });
    await hook();
    expect(await removals(dir)).toHaveLength(1);
  });

  it("at start, a halt the log shows as lasting with no HALT there ends then; a look whose line cannot be written halts", async () => {
    const dir = await tempDir();
    const haltPath = join(dir, "HALT");
    const first = await openLog(dir);
    await ownerHalt({ haltPath, audit: first, now: () => Date.now() }, { user_id: 1, channel: "command" });
    await first.close();
    await rm(haltPath);
    const audit = await openLog(dir);
    expect(audit.index.ownerHaltLasting()).toBe(true);
    const clock = new SimulatedClock(T0);
    const open = (beforeVerdict: () => Promise<void>) =>
      watchKillSwitch(envKillSwitch({ processValue: undefined, envFilePath: join(dir, ".env"), ownerHaltPath: haltPath }), {
        clock,
        pollMs: 0,
        beforeVerdict,
      });
    // Its line cannot be written: the look halts, saying why.
    const failing = open(
      auditHaltRemoval({
        haltPath,
        audit: {
          ...audit,
          index: audit.index,
          ownerHaltLasting: async () => true,
          append: async () => Promise.reject(new Error("disk full")),
        },
      }),
    );
    expect(await failing.check()).toEqual({
      halted: true,
      reason: expect.stringMatching(/the end of the owner's halt could not be audited \(disk full\)/),
    });
    failing.stop();
    const watch = open(auditHaltRemoval({ haltPath, audit }));
    expect(await watch.check()).toEqual({ halted: false });
    expect((await removals(dir)).map((l) => l.entry?.kind === "owner_resume" && l.entry.channel)).toEqual(["file"]);
    watch.stop();
    // HALT back: the look halts as before, and the hook writes nothing.
    await writeFile(haltPath, "{}\n");
    const again = open(auditHaltRemoval({ haltPath, audit }));
    expect((await again.check()).halted).toBe(true);
    expect(await removals(dir)).toHaveLength(1);
    again.stop();
  });
});
