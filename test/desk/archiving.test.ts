import { readdir, readFile, rm, writeFile, open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { archiveMonthOf } from "../../src/desk/archiving.js";
import { draftRecordSchema, type DraftRecord } from "../../src/drafts/record.js";
import { DraftArchive } from "../../src/store/archive.js";
import { memoryLog } from "../store/helpers.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { T0 } from "../support/drafts.js";
import { openTestCore, REVIEWER, submitPosted, submitRevised, type TestCore } from "../support/core.js";

const DAY = 86_400_000;
const open_: TestCore[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const t of open_.splice(0)) await t.close().catch(() => {});
});

/** In-process only, on a simulated clock from the fixed T0: the month files are named from it. */
async function core(dir?: string, env: Record<string, string> = {}) {
  const t = await openTestCore(dir, { env, clock: new SimulatedClock(T0) });
  open_.push(t);
  return t;
}

/** Three drafts: one sent, one revised, one still pending; plus one sent later. */
async function history(t: TestCore) {
  const approve = async (id: string) => {
    const d = t.core.desk.get(id)!;
    await t.core.desk.decide({
      reviewChatId: d.review_chat_id!,
      reviewMessageId: d.review_message_id!,
      decision: "send",
      actor: { user_id: REVIEWER, channel: "test", emoji: "👍", update_id: null },
    });
    await t.core.desk.settle();
  };
  const sent = await submitPosted(t, "sent long ago", { idempotency_key: "key-sent" });
  await approve(sent.draft_id);
  const revised = await submitRevised(t, "revised long ago");
  return { sent: sent.draft_id, revised };
}

async function archiveFiles(dir: string): Promise<string[]> {
  return (await readdir(join(dir, "archive")).catch(() => [])).sort();
}

async function storeIds(dir: string): Promise<string[]> {
  const text = await readFile(join(dir, "telegram_drafts.jsonl"), "utf8");
  return [
    ...new Set(
      text
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { draft_id: string }).draft_id),
    ),
  ];
}

describe("archiving final drafts after DRAFT_RETENTION", () => {
  it("moves them to archive/telegram_drafts-YYYY-MM.jsonl; get, find and the idempotency check still find them", async () => {
    const t = await core();
    const { sent, revised } = await history(t);
    await t.clock.advance(29 * DAY);
    expect(await t.core.desk.archiveOld()).toBe(0);
    await t.clock.advance(1 * DAY);
    expect(await t.core.desk.archiveOld()).toBe(2);
    expect(t.core.desk.get(sent)).toBeUndefined();
    expect(await storeIds(t.dir)).toEqual([]);
    expect(await archiveFiles(t.dir)).toEqual(["catalog.bin", "telegram_drafts-2026-11.jsonl"]);
    expect((await t.core.desk.find(sent))?.status).toBe("sent");
    expect((await t.core.desk.find(revised))?.status).toBe("revise");
    expect(await t.core.desk.find("d_nope")).toBeUndefined();
    const again = await t.core.intake.submit({
      draft_text: "sent long ago",
      destination_chat_id: "-1001234567890",
      drafted_by_role: "CoS",
      originating_intent_id: "i-1",
      idempotency_key: "key-sent",
    });
    expect(again).toMatchObject({ ok: true, created: false, answer: { draft_id: sent, status: "sent" } });

    // After a restart too, and with the catalog lost (rebuilt from the month files).
    await t.close();
    open_.pop();
    await rm(join(t.dir, "archive", "catalog.bin"));
    const t2 = await core(t.dir);
    expect((await t2.core.desk.find(sent))?.status).toBe("sent");
    expect(t2.core.desk.list()).toEqual([]);
  });

  it("keeps awaiting drafts whatever their age, and honours DRAFT_RETENTION", async () => {
    const t = await core(undefined, { DRAFT_RETENTION: "2d", DRAFT_TTL: "30d" });
    const { sent } = await history(t);
    const waiting = await submitPosted(t, "still waiting");
    await t.clock.advance(2 * DAY);
    expect(await t.core.desk.archiveOld()).toBe(2);
    expect(t.core.desk.get(waiting.draft_id)?.status).toBe("pending");
    expect((await t.core.desk.find(sent))?.status).toBe("sent");
  });

  it("finishes a move a crash interrupted without filing a draft twice", async () => {
    const t = await core();
    const { sent, revised } = await history(t);
    const records = [t.core.desk.get(sent)!, t.core.desk.get(revised)!];
    // The crash: the archive has them, the store was not rewritten yet.
    const archive = await DraftArchive.open<DraftRecord>({
      dir: join(t.dir, "archive"),
      parse: (v) => draftRecordSchema.parse(v),
      monthOf: archiveMonthOf,
      log: memoryLog(),
    });
    await archive.add(records);
    await t.close();
    open_.pop();
    const t2 = await openTestCore(t.dir, { clock: t.clock });
    open_.push(t2);
    expect(t2.core.desk.get(sent)?.status).toBe("sent"); // still in the store: not lost
    await t2.clock.advance(30 * DAY);
    expect(await t2.core.desk.archiveOld()).toBe(2);
    const month = (await readFile(join(t.dir, "archive", "telegram_drafts-2026-11.jsonl"), "utf8")).split("\n").filter(Boolean);
    expect(month.map((l) => (JSON.parse(l) as { draft_id: string }).draft_id).sort()).toEqual([sent, revised].sort());
  });

  it("a full disk while archiving loses nothing: the drafts stay in the store and move on the next pass", async () => {
    const t = await core();
    const { sent } = await history(t);
    await t.clock.advance(30 * DAY);
    const probe = await open(join(t.dir, "probe"), "w");
    await probe.close();
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    vi.spyOn(proto, "sync").mockRejectedValueOnce(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }));
    await expect(t.core.desk.archiveOld()).rejects.toThrow(/ENOSPC/);
    expect(t.core.desk.get(sent)?.status).toBe("sent");
    expect((await readdir(join(t.dir, "archive"))).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(await t.core.desk.archiveOld()).toBe(2);
    expect((await t.core.desk.find(sent))?.status).toBe("sent");
  });

  it("refuses to read a damaged month file instead of guessing", async () => {
    const t = await core();
    const { sent } = await history(t);
    await t.clock.advance(30 * DAY);
    await t.core.desk.archiveOld();
    const path = join(t.dir, "archive", "telegram_drafts-2026-11.jsonl");
    await writeFile(path, (await readFile(path, "utf8")).replace("sent long ago", "sent long agO"));
    await expect(t.core.desk.find(sent)).rejects.toThrow(/damaged/);
  });
});
