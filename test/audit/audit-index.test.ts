import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditLog, verifyAuditChain } from "../../src/audit/audit-log.js";
import { FEED_SAMPLE_EVERY } from "../../src/audit/audit-index.js";
import { auditEventFeed } from "../../src/desk/event-feed.js";
import { memoryLog, tempDir } from "../store/helpers.js";
import { noticeEntry, transitionLine } from "./entries.js";

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

async function openAt(dir: string, log = memoryLog()) {
  let t = Date.UTC(2026, 10, 30);
  const audit = await AuditLog.open({
    path: join(dir, "swarm.jsonl"),
    log,
    now: () => (t += 1000),
    checkpointPath: join(dir, "audit_index.json"),
  });
  opened.push(audit);
  return { audit, log };
}

/** A refusal of update `id` and a decision of update `id + 1` for draft `d`. */
async function someHistory(audit: AuditLog, n: number) {
  for (let i = 1; i <= n; i++) {
    await audit.append([
      transitionLine(`d${i}`, { version: 1, to: "pending", from: "queued", event: "posted" }),
      {
        kind: "decision_refused",
        draft_id: `d${i}`,
        status: "pending",
        decision: "send",
        emoji: "👍",
        user_id: 9,
        channel: "reaction",
        update_id: 1000 + i,
        reason: "not_a_reviewer",
        chat_id: "1",
        review_message_id: i,
      },
      noticeEntry("told", `d${i}`, "pending"),
    ]);
  }
}

describe("AuditIndex and its checkpoint", () => {
  it("starts from the checkpoint and reads only the lines after it", async () => {
    const dir = await tempDir();
    const { audit } = await openAt(dir);
    await someHistory(audit, 20);
    await audit.close();
    opened.pop();
    const size = (await readFile(join(dir, "swarm.jsonl"))).length;

    const { audit: again, log } = await openAt(dir);
    expect(again.opened).toEqual({ fromCheckpoint: true, bytesRead: 0 });
    expect(log.warns).toEqual([]);
    expect(again.index.hasSeenUpdate(1007)).toBe(true);
    expect(again.index.wasNotified("d3", "pending")).toBe(true);
    expect(again.index.audited("d20")).toEqual({ version: 1, to: "pending" });
    expect(again.lastSeq).toBe(60);
    // Another writer's line and more of ours: the next start reads only those bytes.
    await appendFile(join(dir, "swarm.jsonl"), '{"source":"scribe","kind":"note"}\n');
    await again.append([noticeEntry("later", "d21")]);
    await again.close();
    opened.pop();
    const { audit: third } = await openAt(dir);
    expect(third.opened.fromCheckpoint).toBe(true);
    expect(third.opened.bytesRead).toBe(0);
    expect(third.lastSeq).toBe(61);
    expect(size).toBeGreaterThan(1000);
    await third.append([noticeEntry("after", "d22")]);
    expect(await verifyAuditChain(join(dir, "swarm.jsonl"))).toEqual({ ok: true, lines: 62 });
  });

  it("catches up from a stale (older) checkpoint: lines after it still count", async () => {
    const dir = await tempDir();
    const { audit } = await openAt(dir);
    await someHistory(audit, 3);
    await audit.checkpoint();
    const older = await readFile(join(dir, "audit_index.json"));
    await audit.append([
      {
        ...noticeEntry("x"),
        kind: "decision_refused",
        draft_id: null,
        status: null,
        decision: null,
        emoji: null,
        user_id: 5,
        channel: "button",
        update_id: 4242,
        reason: "not_a_reviewer",
        chat_id: "1",
        review_message_id: null,
      } as never,
    ]);
    await audit.close();
    opened.pop();
    await writeFile(join(dir, "audit_index.json"), older); // the checkpoint a crash left behind
    const { audit: again, log } = await openAt(dir);
    expect(again.opened.fromCheckpoint).toBe(true);
    expect(again.opened.bytesRead).toBeGreaterThan(0);
    expect(again.index.hasSeenUpdate(4242)).toBe(true);
    expect(again.lastSeq).toBe(10);
    expect(log.warns).toEqual([]);
  });

  it.each([
    ["torn", (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ["bit-flipped", (text: string) => text.replace('"last_seq":9', '"last_seq":8')],
    ["garbage", () => "\u0000\u0000\u0000"],
  ])("falls back to a full scan, with a log line, from a %s checkpoint", async (_name, damage) => {
    const dir = await tempDir();
    const { audit } = await openAt(dir);
    await someHistory(audit, 3);
    await audit.close();
    opened.pop();
    const cp = join(dir, "audit_index.json");
    await writeFile(cp, damage(await readFile(cp, "utf8")));
    const { audit: again, log } = await openAt(dir);
    expect(again.opened.fromCheckpoint).toBe(false);
    expect(log.warns.some((w) => /checkpoint cannot be used; reading the whole audit log/.test(w.msg))).toBe(true);
    expect(again.index.hasSeenUpdate(1002)).toBe(true);
    expect(again.lastSeq).toBe(9);
    await again.append([noticeEntry("next")]);
    expect(await verifyAuditChain(join(dir, "swarm.jsonl"))).toEqual({ ok: true, lines: 10 });
  });

  it("does not trust a checkpoint of another file (the log was replaced or cut)", async () => {
    const dir = await tempDir();
    const { audit } = await openAt(dir);
    await someHistory(audit, 3);
    await audit.close();
    opened.pop();
    const path = join(dir, "swarm.jsonl");
    const lines = (await readFile(path, "utf8")).split("\n");
    await writeFile(path, `${lines.slice(0, 4).join("\n")}\n`); // restored from an older backup
    const { audit: again, log } = await openAt(dir);
    expect(again.opened.fromCheckpoint).toBe(false);
    expect(log.warns.some((w) => /does not match the audit log/.test(String(w.obj.problem)))).toBe(true);
    expect(again.lastSeq).toBe(4);
    expect(again.index.hasSeenUpdate(1003)).toBe(false);
  });

  it.each([
    ["only our lines since the last scan (nothing read)", false],
    ["another writer's line between ours (read)", true],
  ])("a checkpoint with %s records what a full read finds", async (_name, foreign) => {
    const dir = await tempDir();
    const path = join(dir, "swarm.jsonl");
    const { audit } = await openAt(dir);
    await someHistory(audit, 2);
    await audit.checkpoint();
    if (foreign) await appendFile(path, '{"source":"scribe","kind":"note"}\n');
    await someHistory(audit, 3);
    await audit.checkpoint();
    const saved = JSON.parse(await readFile(join(dir, "audit_index.json"), "utf8"));
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "audit_index.json"));
    const { audit: full } = await openAt(dir);
    expect(full.opened.fromCheckpoint).toBe(false);
    await full.checkpoint();
    const read = JSON.parse(await readFile(join(dir, "audit_index.json"), "utf8"));
    const where = (s: Record<string, unknown>) => [s.scanned_to, s.lines, s.head, s.last_seq, s.last_hash];
    expect(where(saved)).toEqual(where(read));
    expect(saved.lines).toBe(foreign ? 16 : 15);
    expect(saved.scanned_to).toBe((await readFile(path)).length);
  });

  it("written every few lines beside the appends, leaves at close the checkpoint of the last line", async () => {
    const dir = await tempDir();
    let t = Date.UTC(2026, 10, 30);
    const path = join(dir, "swarm.jsonl");
    const options = { path, log: memoryLog(), now: () => (t += 1000), checkpointPath: join(dir, "audit_index.json"), checkpointEvery: 2 };
    const audit = await AuditLog.open(options);
    await Promise.all(Array.from({ length: 15 }, (_, i) => audit.append([noticeEntry("told", `d${i}`)])));
    await audit.close();
    const again = await AuditLog.open(options);
    opened.push(again);
    expect(again.opened).toEqual({ fromCheckpoint: true, bytesRead: 0 });
    expect(again.lastSeq).toBe(15);
  });

  it("logs a missing checkpoint as information and writes one", async () => {
    const dir = await tempDir();
    const { audit } = await openAt(dir);
    await someHistory(audit, 1);
    await audit.close();
    opened.pop();
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "audit_index.json"));
    const { audit: again, log } = await openAt(dir);
    expect(log.infos.some((i) => /no audit index checkpoint/.test(i.msg))).toBe(true);
    expect(again.lastSeq).toBe(3);
    await again.close();
    opened.pop();
    expect((await readFile(join(dir, "audit_index.json"), "utf8")).length).toBeGreaterThan(0);
  });
});

describe("the events feed from disk", () => {
  it("pages from any `after` through the index, across other writers' lines and restarts", async () => {
    const dir = await tempDir();
    const { audit } = await openAt(dir);
    const total = FEED_SAMPLE_EVERY * 2 + 37;
    for (let i = 1; i <= total; i++) {
      await audit.append([transitionLine(`d${i}`, { version: 1, to: "queued" }), noticeEntry("n", `d${i}`)]);
      if (i % 50 === 0) await appendFile(join(dir, "swarm.jsonl"), `{"source":"scribe","kind":"note","text":"${"x".repeat(i)}"}\n`);
    }
    const check = async (a: AuditLog) => {
      const feed = auditEventFeed(a);
      const seen: number[] = [];
      let after = 0;
      for (;;) {
        const page = await feed.after(after, 100);
        if (page.events.length === 0) break;
        seen.push(...page.events.map((e) => e.seq));
        after = page.lastSeq;
      }
      expect(seen).toEqual(Array.from({ length: total }, (_, i) => 2 * i + 1));
      const mid = await feed.after(301, 2);
      expect(mid.events.map((e) => [e.seq, e.draft_id, e.kind])).toEqual([
        [303, "d152", "transition"],
        [305, "d153", "transition"],
      ]);
      expect((await feed.after(10_000, 5)).events).toEqual([]);
    };
    await check(audit);
    await audit.close();
    opened.pop();
    const { audit: again } = await openAt(dir);
    expect(again.opened.fromCheckpoint).toBe(true);
    await check(again);
  });
});
