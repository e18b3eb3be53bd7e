import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import type { DraftEvent } from "../../src/drafts/events.js";
import { transition } from "../../src/drafts/machine.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { envKillSwitch } from "../../src/send/kill-switch.js";
import { unlimited } from "../../src/send/limiter.js";
import { SendPath } from "../../src/send/send-path.js";
import { eventually, freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { draftIn, T0 } from "../support/drafts.js";
import { GROUP, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

// Issue 12 item 5: the kill switch never fails open.

const live = useLiveDaemon();

async function posted(d: DaemonProcess, text: string): Promise<{ draft_id: string; review_message_id: number }> {
  const queued = (await d.request("POST", "/drafts", payload(text))).body;
  return eventually(async () => {
    const rec = (await d.request("GET", `/drafts/${queued.draft_id}`)).body;
    return rec.status === "pending" ? rec : null;
  });
}

const haltRecord = (d: DaemonProcess) =>
  readFile(join(d.harnessDir, "halt_record.json"), "utf8").then(
    (t) => JSON.parse(t) as { ended_at: string | null },
    () => null,
  );
const record = async (d: DaemonProcess, id: string) => (await d.request("GET", `/drafts/${id}`)).body;
const approve = (messageId: number, old: string[] = []) =>
  live.double.injectReaction({ chatId: OWNER, messageId, userId: OWNER, oldEmojis: old, newEmojis: ["👍"] });

describe("the kill switch halts on any HALT entry and any halting .env line (live daemon)", () => {
  for (const kind of ["a dangling symlink", "a directory"] as const) {
    it(`HALT as ${kind} halts the owner's 👍`, async () => {
      await live.start();
      const halt = join(live.daemon.harnessDir, "HALT");
      if (kind === "a directory") await mkdir(halt);
      else await symlink(join(live.daemon.harnessDir, "nowhere"), halt);
      const d = await posted(live.daemon, `HALT is ${kind}`);
      approve(d.review_message_id);
      await eventually(async () => (await record(live.daemon, d.draft_id)).status === "halted", 10_000, "halted");
      expect((await record(live.daemon, d.draft_id)).reason).toContain("halted by the owner");
      expect(live.double.messages(GROUP)).toHaveLength(0);
    });
  }

  it("`.env` with TAO_SWARM_ENABLED=0 and a later =1 halts (any halting line counts, not only the last)", async () => {
    const dirs = await freshDirs();
    await writeFile(join(dirs.cwd, ".env"), "TAO_SWARM_ENABLED=0\n# someone appended:\nTAO_SWARM_ENABLED=1\n", { mode: 0o600 });
    await live.start({}, { dirs });
    const d = await posted(live.daemon, "Two switch lines");
    approve(d.review_message_id);
    await eventually(async () => (await record(live.daemon, d.draft_id)).status === "halted", 10_000, "halted");
    expect((await record(live.daemon, d.draft_id)).reason).toContain("TAO_SWARM_ENABLED=0 in .env");
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });

  it("a halt that begins during a 429 wait halts the approval at once; lifted before the retry, it stays void; a new 👍 sends", async () => {
    await live.start();
    const d = await posted(live.daemon, "Wait for it");
    // Telegram answers 429 to every send until the halt has come and gone: whether the daemon sees HALT before the
    // retry's timer (3 s on its real clock) or after, nothing can go out meanwhile, however loaded the machine.
    live.double.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 3",
      retry_after: 3,
      times: 10_000,
    });
    approve(d.review_message_id);
    await eventually(async () => /retry after/i.test((await record(live.daemon, d.draft_id)).reason ?? ""), 10_000, "the 429 recorded");
    expect((await record(live.daemon, d.draft_id)).status).toBe("approved");

    // The owner halts: the waiting approval is halted at once (contract v4), not at its retry.
    const halt = join(live.daemon.harnessDir, "HALT");
    await writeFile(halt, "{}\n", { mode: 0o600 });
    await eventually(async () => (await record(live.daemon, d.draft_id)).status === "halted", 10_000, "halted at once");
    expect(await record(live.daemon, d.draft_id)).toMatchObject({ approval: null, halt_lasts: true });
    // Before the retry, the halt is lifted again (or someone deletes HALT): the approval stays void.
    await rm(halt);
    await eventually(async () => (await record(live.daemon, d.draft_id)).halt_lasts === false, 10_000, "the halt is lifted");
    expect((await record(live.daemon, d.draft_id)).reason).toMatch(/^kill switch: halted by the owner/);
    expect(live.double.messages(GROUP)).toHaveLength(0);
    live.double.clearFaults();

    // A new 👍 (removed and given again) sends it.
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    approve(d.review_message_id);
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent after a new 👍");
  });

  it("a halt that begins while the send call is under way halts the approval when its 429 comes back, not at its retry", async () => {
    await live.start();
    const d = await posted(live.daemon, "Not in ten minutes");
    const halt = join(live.daemon.harnessDir, "HALT");
    // The owner halts while Telegram holds the call, and the daemon sees it (its halt record says a halt lasts) while
    // the draft is still being sent: nothing waits to be voided then. The answer is a 429 that asks for ten minutes.
    const until = async () => {
      await writeFile(halt, "{}\n", { mode: 0o600 });
      await eventually(async () => (await haltRecord(live.daemon))?.ended_at === null, 10_000, "the halt seen");
    };
    live.double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 600", retry_after: 600, until });
    approve(d.review_message_id);
    await eventually(async () => (await record(live.daemon, d.draft_id)).status === "halted", 10_000, "halted when the 429 came back");
    expect(await record(live.daemon, d.draft_id)).toMatchObject({ approval: null, halt_lasts: true });
    expect((await record(live.daemon, d.draft_id)).reason).toMatch(/^kill switch: halted by the owner/);
    expect(live.double.messages(GROUP)).toHaveLength(0);
  });
});

describe("the send path looks at the switch again after writing the intent", () => {
  it("a HALT that appears while the intent is being made durable stops the call", async () => {
    const dir = await mkdtemp(join(tmpdir(), "draft-switch-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const haltPath = join(dir, "HALT");
    const drafts = new Map<string, DraftRecord>([["d_test", draftIn("approved")]]);
    const applied: string[] = [];
    const calls: string[] = [];
    const clock = new SimulatedClock(T0 + 1000);
    const sendPath = new SendPath({
      ledger: {
        get: (id) => drafts.get(id),
        async apply(id: string, event: DraftEvent) {
          const result = transition(drafts.get(id)!, event, clock.now());
          if (result.ok) drafts.set(id, result.draft);
          applied.push(`${event.type}:${result.ok ? result.draft.status : result.reason}`);
          // The owner's /halt lands between the first look and the call (during the intent's fsyncs).
          if (event.type === "send_intent") await writeFile(haltPath, "{}\n");
          return result;
        },
        runEffects() {},
      },
      killSwitch: envKillSwitch({ processValue: undefined, envFilePath: join(dir, ".env"), ownerHaltPath: haltPath }),
      limiter: unlimited(),
      call: async ({ text }) => {
        calls.push(text);
        return { kind: "ok", messageId: 1 };
      },
      reviewerIds: new Set([100000001]),
      clock,
      log: { warn() {}, error() {} },
    });
    await sendPath.send("d_test");
    expect(calls).toEqual([]);
    expect(applied).toEqual(["send_intent:sending", "halt:halted"]);
    expect(drafts.get("d_test")).toMatchObject({
      status: "halted",
      approval: null,
      reason: expect.stringContaining("halted by the owner"),
    });
  });
});
