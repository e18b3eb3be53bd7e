import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import { UpdateJournal } from "../../src/telegram/update-journal.js";

const log = { info() {}, warn() {} };
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function journalPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "update-journal-"));
  dirs.push(dir);
  return join(dir, "updates.jsonl");
}

const update = (id: number) => ({ update_id: id, message: { message_id: id, text: `/help ${"x".repeat(200)}` } }) as unknown as Update;

describe("UpdateJournal", () => {
  it("hands back only what is in flight or to retry; handled and answered updates are done", async () => {
    const path = await journalPath();
    const j = await UpdateJournal.open(path, log);
    await j.record([1, 2, 3, 4].map(update));
    await j.finish(1);
    await j.markAnswered(2);
    await j.finish(4, true);
    await j.close();
    const again = await UpdateJournal.open(path, log);
    expect(again.entries().map((u) => u.update_id)).toEqual([3, 4]);
    expect([1, 2, 3, 4].map((id) => again.isDone(id))).toEqual([true, true, false, false]);
    // A redelivery keeps the state the journal has.
    await again.record([update(1), update(2)]);
    expect(again.isDone(1) && again.isDone(2)).toBe(true);
    await again.close();
  });

  it("an update that answered (the reviewer told 'not saved') and is then marked retry is handled again at the next start", async () => {
    const path = await journalPath();
    const j = await UpdateJournal.open(path, log);
    await j.record([update(7)]);
    await j.markAnswered(7);
    await j.finish(7, true);
    await j.close();
    const again = await UpdateJournal.open(path, log);
    expect(again.entries().map((u) => u.update_id)).toEqual([7]);
    await again.close();
  });

  it("handling may start while an update's `received` line is written: its answered and handled marks wait for that line", async () => {
    const path = await journalPath();
    const j = await UpdateJournal.open(path, log);
    // Not awaited, as the poll does (journaled-updates.ts): the handler marks at once.
    const recorded = j.record([update(5), update(6)]);
    const marks = [j.markAnswered(5), j.finish(5), j.finish(6, true)];
    // The same batch fetched again while it is written is written once.
    await Promise.all([recorded, j.record([update(5)]), ...marks]);
    await j.close();
    const lines = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l.slice(l.indexOf("{"))));
    // Each update's lines in the order they happened (the two updates' marks may interleave).
    const of = (id: number) => lines.filter((l) => l.update_id === id).map((l) => l.state);
    expect([of(5), of(6)]).toEqual([
      ["received", "answered", "handled"],
      ["received", "retry"],
    ]);
    const again = await UpdateJournal.open(path, log);
    expect(again.entries().map((u) => u.update_id)).toEqual([6]);
    expect(again.isDone(5)).toBe(true);
    await again.close();
  });

  it("stays bounded: a day of handled updates leaves a few hundred ids, not the history", async () => {
    const path = await journalPath();
    const j = await UpdateJournal.open(path, log);
    // 1,300 ids (2,600 fsync'd lines) pass the prune point (1,000 lines) twice; enough to prove the bound, quick on a loaded disk.
    for (let id = 1; id <= 1_300; id++) {
      await j.record([update(id)]);
      await j.finish(id);
    }
    await j.close();
    const text = await readFile(path, "utf8");
    const lines = text.trimEnd().split("\n").length;
    expect(lines).toBeLessThan(3_500);
    const again = await UpdateJournal.open(path, log);
    expect(again.size).toBeLessThanOrEqual(1_000);
    expect(again.entries()).toEqual([]);
    // The most recent handled ids are still known, so a redelivery of the last batch is skipped.
    expect(again.isDone(1_300) && again.isDone(1_201)).toBe(true);
    await again.close();
  }, 90_000);
});
