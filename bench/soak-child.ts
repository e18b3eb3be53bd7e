/**
 * 7. The soak, alone in its process: `node --expose-gc soak-child.js <days> <perDay>`.
 * Steady traffic on the simulated clock: each day `perDay` drafts arrive
 * through the intake, spread over the day; 60% are approved and sent, 15% sent
 * back for revision, 10% deferred (then left to expire), 15% never answered
 * (expire after 24 h). Every third day the core is stopped and started again.
 * DRAFT_RETENTION is 7d, so retention is reached on day 8. After each day, and
 * full GCs: RSS, heap, open file descriptors, store and archive size, live
 * drafts, and the last start-up time. Prints one JSON line per day.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { openCore, type Core } from "../src/app/core.js";
import { SimulatedClock } from "../src/clock/simulated-clock.js";
import { loadConfig } from "../src/config/config.js";
import { resumeDrafts } from "../src/desk/recovery.js";
import type { Decision } from "../src/drafts/record.js";
import { unlimited } from "../src/send/limiter.js";
import { FakeReviewChat } from "../src/test-mode/fake-review-chat.js";
import { draftText, silentLogger, sleep, tempDir } from "./support.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const DAY = 86_400_000;
const days = Number(process.argv[2] ?? 30);
const perDay = Number(process.argv[3] ?? 100);
const tmp = await tempDir("soak");
// A fresh clock per life, as a restarted process has: a closed core's timers die with it.
let clock = new SimulatedClock(Date.parse("2026-01-01T00:00:00Z"));
const log = silentLogger();
const config = loadConfig({
  TAO_DRAFT_REVIEW_TEST: "1",
  HARNESS_DIR: tmp.dir,
  DRAFT_RETENTION: "7d",
  PII_REDACTION: "off",
  LOG_LEVEL: "silent",
});
const reviewer = [...config.reviewerIds][0]!;
let nextMessage = 1;

async function start(): Promise<{ core: Core; seconds: number }> {
  const t0 = performance.now();
  const core = await openCore(config, log, {
    clock,
    makeReviewChat: (existing) => new FakeReviewChat(config.reviewChatId, existing, log),
    sendCall: async () => ({ kind: "ok", messageId: nextMessage++ }),
    limiter: unlimited(),
    redact: null,
    processSwitchValue: undefined,
    envFilePath: join(tmp.dir, ".env"),
  });
  await resumeDrafts(core.desk);
  await core.desk.settle();
  return { core, seconds: (performance.now() - t0) / 1000 };
}

async function bytesIn(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

async function dirBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let total = 0;
  for (const n of names) total += await bytesIn(join(dir, n));
  return total;
}

let { core, seconds: startSeconds } = await start();
let n = 0;
const settle = () => core.desk.settle();
for (let day = 1; day <= days; day++) {
  if (day > 1 && day % 3 === 1) {
    await core.close();
    clock = new SimulatedClock(clock.now());
    ({ core, seconds: startSeconds } = await start());
  }
  const step = DAY / perDay;
  for (let k = 0; k < perDay; k++, n++) {
    const outcome = await core.intake.submit({
      draft_text: draftText(n),
      destination_chat_id: String(-1_001_000_000_000 - (n % 40)),
      drafted_by_role: (["Scribe", "CoS", "Margot"] as const)[n % 3],
      originating_intent_id: `soak-${n}`,
      idempotency_key: `soak-${n}`,
    });
    if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome)}`);
    await settle();
    const draft = core.desk.get(outcome.answer.draft_id);
    const r = n % 20;
    const decision: Decision | null = r < 12 ? "send" : r < 15 ? "revise" : r < 17 ? "defer" : null;
    if (draft && draft.review_message_id !== null && decision !== null) {
      await core.desk.decide({
        reviewChatId: draft.review_chat_id!,
        reviewMessageId: draft.review_message_id,
        decision,
        actor: { user_id: reviewer, channel: "test", emoji: null, update_id: 1_000_000 + n },
        ...(decision === "revise" ? { note: "Shorter, please." } : {}),
      });
      await settle();
    }
    await clock.advance(step, settle);
  }
  await settle();
  await core.desk.archiveOld(); // waits behind a daily pass under way, so the sizes below are not mid-move
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
  const usage = process.memoryUsage();
  const fds = (await readdir("/proc/self/fd").catch(() => [])).length;
  process.stdout.write(
    `${JSON.stringify({
      day,
      rssMB: usage.rss / 2 ** 20,
      heapUsedMB: usage.heapUsed / 2 ** 20,
      fds,
      storeKB: (await bytesIn(join(tmp.dir, "telegram_drafts.jsonl"))) / 1024,
      archiveKB: (await dirBytes(join(tmp.dir, "archive"))) / 1024,
      auditKB: (await bytesIn(join(tmp.dir, "swarm.jsonl"))) / 1024,
      liveDrafts: core.store.latest.size,
      startSeconds,
    })}\n`,
  );
}
await core.close();
await tmp.remove();
