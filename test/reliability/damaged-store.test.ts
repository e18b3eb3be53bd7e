/**
 * Damaged draft store, through the real start-up path: openCore in-process
 * for the exhaustive sweeps, and `node dist/main.js` (test mode) for a sample
 * of each kind. A damaged tail is cut and start-up goes on; a damaged middle
 * line stops start-up with a message naming the file and the line, and
 * nothing is changed.
 */
import { randomBytes } from "node:crypto";
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { StoreCorruptError } from "../../src/store/store-errors.js";
import { runTestMode } from "../support/test-mode-process.js";
import {
  approve,
  cleanup,
  figures,
  flipBit,
  latestById,
  lineStarts,
  openTestCore,
  payload,
  AT_ANOTHER_DATE,
  prng,
  sample,
  scaled,
  sweepDir,
  tempDir,
} from "./support/hostile-kit.js";

interface Seed {
  store: Buffer;
  audit: Buffer;
  /** The audit key the seed's lines are proven with. */
  key: Buffer;
  /** Line start offsets of the store (last entry: its length). */
  starts: number[];
  ids: { pending: string; revised: string; sent: string };
}

let seed: Seed;

/** A store whose last line is the `sent` of a draft: A pending, B revise, C approved → sending → sent. */
async function makeSeed(): Promise<Seed> {
  const dir = join(await tempDir(), ".harness");
  const tc = await openTestCore(dir);
  const submit = async (text: string) => {
    const out = await tc.core.intake.submit(payload(text));
    if (!out.ok) throw new Error(JSON.stringify(out));
    await tc.core.desk.settle();
    return out.answer;
  };
  const a = await submit("Draft A stays pending");
  const b = await submit("Draft B goes back for revision");
  const c = await submit("Draft C is approved and sent");
  await tc.core.desk.decide({
    reviewChatId: tc.core.desk.get(b.draft_id)!.review_chat_id!,
    reviewMessageId: b.review_message_id!,
    decision: "revise",
    note: "warmer please",
    actor: { user_id: 100000001, channel: "reply", emoji: null, update_id: null },
  });
  await approve(tc, c.review_message_id!);
  await tc.core.desk.settle();
  expect(tc.sends).toHaveLength(1);
  await tc.core.close();
  const paths = harnessPaths(dir);
  const store = await readFile(paths.drafts);
  const lastStatus = JSON.parse(store.toString("utf8").trimEnd().split("\n").at(-1)!).status;
  expect(lastStatus).toBe("sent");
  return {
    store,
    audit: await readFile(paths.audit),
    key: await readFile(paths.auditKey),
    starts: lineStarts(store),
    ids: { pending: a.draft_id, revised: b.draft_id, sent: c.draft_id },
  };
}

/** A harness directory holding `store` (and the seed's audit log). */
async function harnessWith(store: Buffer, dir?: string): Promise<string> {
  const h = dir ?? join(await tempDir(), ".harness");
  await mkdir(h, { recursive: true });
  await writeFile(harnessPaths(h).drafts, store);
  await writeFile(harnessPaths(h).audit, seed.audit);
  await writeFile(harnessPaths(h).auditKey, seed.key, { mode: 0o600 });
  return h;
}

beforeAll(async () => {
  seed = await makeSeed();
});

afterAll(cleanup);

describe("damaged draft store: the tail is recovered every time", () => {
  it("cuts the last line torn at every byte offset, and never sends again what it cannot prove unsent", async () => {
    const lastStart = seed.starts.at(-2)!;
    const len = seed.store.length;
    const expected = latestById(seed.store.subarray(0, lastStart).toString("utf8"));
    const sentMessageId = JSON.parse(seed.store.subarray(lastStart).toString("utf8")).sent_message_id;
    expect(sentMessageId).toEqual(expect.any(Number));
    const dir = join(await sweepDir(), ".harness");
    let cases = 0;
    let warned = 0;
    // Every byte offset of the last line; at another date 40 of them and both ends (the date is in the fixture, not the offset).
    const cuts = AT_ANOTHER_DATE
      ? [lastStart, ...sample(lastStart + 1, len - 1, 40, prng(5)), len - 1]
      : Array.from({ length: len - lastStart }, (_, i) => lastStart + i);
    for (const cut of cuts) {
      const h = await harnessWith(seed.store.subarray(0, cut), dir);
      const tc = await openTestCore(h);
      const latest = tc.core.store.latest;
      // Everything before the torn line is kept, as it was...
      expect([...latest.keys()]).toEqual([...expected.keys()]);
      expect(latest.get(seed.ids.pending)?.status).toBe("pending");
      expect(latest.get(seed.ids.revised)?.status).toBe("revise");
      // ...and the send whose `sent` line was torn is never resent: the audit log has its outcome, so it stays sent.
      expect(latest.get(seed.ids.sent)).toMatchObject({ status: "sent", sent_message_id: sentMessageId });
      expect(tc.sends).toHaveLength(0);
      const cutWarning = tc.logLines.some((l) => String(l.msg).startsWith("cut off a torn or damaged end of the draft store"));
      expect(cutWarning).toBe(cut > lastStart);
      if (cutWarning) warned++;
      await tc.core.close();
      // The file now starts with exactly the good prefix.
      const after = await readFile(harnessPaths(h).drafts);
      expect(after.subarray(0, lastStart).equals(seed.store.subarray(0, lastStart))).toBe(true);
      cases++;
    }
    figures("damaged-store torn-tail", { offsets: cases, recovered: cases, cut_with_warning: warned, resent: 0 });
    // ~1,000 opens of the core, one per byte offset: ~15 s alone, twice that beside another test file on 2 cores.
  }, 240_000); // one daemon start per byte offset: slow on a loaded machine, never a speed target

  it("cuts zeros and garbage appended after the last good line", async () => {
    const rand = prng(7);
    const variants: Array<[string, Buffer]> = [
      ["zeros-1", Buffer.alloc(1)],
      ["zeros-4096", Buffer.alloc(4096)],
      ["zeros-70000", Buffer.alloc(70_000)],
      ["newline", Buffer.from("\n")],
      ["crlf", Buffer.from("\r\n")],
      ["garbage-no-newline", Buffer.from('\u0000\u00ff{"draft_id":"d_x","status":"se')],
      ["garbage-two-lines", Buffer.from("xx\u0001yy\n\u0000\u0000zz")],
      ["one-record-without-crc", Buffer.from('{"draft_id":"d_intruder","status":"approved"}\n')],
    ];
    for (let i = 0; i < scaled(12); i++) {
      const n = 1 + Math.floor(rand() * 3000);
      const bytes = randomBytes(n);
      variants.push([`random-${n}`, bytes]);
    }
    const dir = join(await sweepDir(), ".harness");
    for (const [name, tail] of variants) {
      const h = await harnessWith(Buffer.concat([seed.store, tail]), dir);
      const tc = await openTestCore(h);
      expect(tc.core.store.latest.get(seed.ids.sent)?.status, name).toBe("sent");
      expect(tc.core.store.latest.has("d_intruder"), name).toBe(false);
      expect(tc.sends, name).toHaveLength(0);
      await tc.core.close();
      const after = await readFile(harnessPaths(h).drafts);
      expect(after.equals(seed.store), name).toBe(true);
    }
    figures("damaged-store appended-tail", { cases: variants.length, recovered: variants.length });
  });
});

describe("damaged draft store: a damaged middle stops start-up and changes nothing", () => {
  it("refuses a flipped bit in any middle line, naming the file and the line", async () => {
    const rand = prng(11);
    const starts = seed.starts;
    // Middle lines: every line with at least two good lines after it.
    const middleEnd = starts.at(-3)!;
    const offsets = sample(0, middleEnd, scaled(300), rand);
    const dir = join(await sweepDir(), ".harness");
    const paths = harnessPaths(dir);
    let refused = 0;
    for (const at of offsets) {
      const bit = Math.floor(rand() * 8);
      const damaged = flipBit(seed.store, at, bit);
      await harnessWith(damaged, dir);
      const line = starts.findLastIndex((s) => s <= at) + 1;
      const err = await openTestCore(dir).then(
        async (tc) => {
          await tc.core.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(err, `byte ${at} bit ${bit}`).toBeInstanceOf(StoreCorruptError);
      const e = err as StoreCorruptError;
      expect(e.path).toBe(paths.drafts);
      expect(e.line).toBe(line);
      expect(e.message).toContain(`${paths.drafts} line ${line} is damaged`);
      expect((await readFile(paths.drafts)).equals(damaged)).toBe(true);
      expect((await readFile(paths.audit)).equals(seed.audit)).toBe(true);
      await expect(access(join(dir, "daemon.lock"))).rejects.toThrow();
      refused++;
    }
    figures("damaged-store middle-bitflip", { cases: offsets.length, refused, file_unchanged: refused });
  });
});

describe("damaged draft store through `node dist/main.js` (test mode)", () => {
  it("recovers a torn or padded tail and goes on; refuses a damaged middle with exit 1, file and line named", async () => {
    const rand = prng(13);
    const lastStart = seed.starts.at(-2)!;
    const tails = [
      ...sample(lastStart + 1, seed.store.length, scaled(3), rand).map((cut) => ({
        name: `torn-at-${cut}`,
        bytes: seed.store.subarray(0, cut),
      })),
      { name: "zeros", bytes: Buffer.concat([seed.store, Buffer.alloc(512)]) },
      { name: "garbage", bytes: Buffer.concat([seed.store, randomBytes(300)]) },
    ];
    const runs = await Promise.all(
      tails.map(async (t) => {
        const cwd = await tempDir();
        const h = await harnessWith(t.bytes, join(cwd, ".harness"));
        const run = await runTestMode([{ cmd: "get", draft_id: seed.ids.pending }, { cmd: "list" }], { cwd, harnessDir: h });
        return { ...t, run };
      }),
    );
    for (const { name, run } of runs) {
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      expect(run.answers[0], name).toMatchObject({ draft_id: seed.ids.pending, status: "pending" });
      expect(run.answers[1]!.drafts, name).toHaveLength(3);
      expect(run.stderr, name).toContain("cut off a torn or damaged end of the draft store");
    }

    const middles = sample(0, seed.starts.at(-3)!, scaled(3), rand);
    const refusals = await Promise.all(
      middles.map(async (at) => {
        const cwd = await tempDir();
        const damaged = flipBit(seed.store, at, Math.floor(rand() * 8));
        const h = await harnessWith(damaged, join(cwd, ".harness"));
        const run = await runTestMode([{ cmd: "list" }], { cwd, harnessDir: h });
        return { at, damaged, h, run };
      }),
    );
    for (const { at, damaged, h, run } of refusals) {
      const line = seed.starts.findLastIndex((s) => s <= at) + 1;
      expect(run.code).not.toBe(0);
      expect(run.answers).toEqual([]);
      expect(run.stderr).toContain(`${harnessPaths(h).drafts} line ${line} is damaged`);
      expect(run.stderr).toContain("nothing was changed");
      expect(run.stderr).toContain("draft-review: cannot start.");
      expect(run.stderr).not.toContain("unexpected error");
      expect((await readFile(harnessPaths(h).drafts)).equals(damaged)).toBe(true);
      expect((await readFile(harnessPaths(h).audit)).equals(seed.audit)).toBe(true);
    }
    figures("damaged-store process", {
      tail_cases: runs.length,
      started: runs.length,
      middle_cases: refusals.length,
      refused_nonzero_exit: refusals.filter((r) => r.run.code !== 0).length,
      exit_codes: [...new Set(refusals.map((r) => r.run.code))],
    });
  });
});
