/**
 * 5. Steady memory with `n` drafts awaiting a decision, alone in its process:
 * `node --expose-gc memory-child.js <n>`. The core the daemon runs (store,
 * audit log, desk with an expiry timer per draft, intake, the send path's
 * limiter), drafts submitted through the intake and posted (test mode's
 * review chat), then measured after full GCs. Prints one JSON line.
 */
import { join } from "node:path";
import { openCore } from "../src/app/core.js";
import { systemClock } from "../src/clock/clock.js";
import { slidingWindowLimiter } from "../src/send/sliding-limiter.js";
import { FakeReviewChat } from "../src/test-mode/fake-review-chat.js";
import { payloadFor } from "./core-fixture.js";
import { benchConfig, silentLogger, sleep, tempDir } from "./support.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

async function settled(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await sleep(50);
  }
  return process.memoryUsage();
}

const n = Number(process.argv[2] ?? 10_000);
const tmp = await tempDir("memory");
const log = silentLogger();
const config = benchConfig(tmp.dir, { token: "123456789:AAbenchbenchbenchbenchbenchbenchben", url: "http://127.0.0.1:9" });
const core = await openCore(config, log, {
  clock: systemClock(),
  makeReviewChat: (existing) => new FakeReviewChat(config.reviewChatId, existing, log),
  sendCall: async () => ({ kind: "not_sent", reason: "no network in this benchmark" }),
  limiter: slidingWindowLimiter(systemClock()),
  redact: null,
  processSwitchValue: undefined,
  envFilePath: join(tmp.dir, ".env"),
});
const before = await settled();
for (let from = 0; from < n; from += 200) {
  await Promise.all(
    Array.from({ length: Math.min(200, n - from) }, (_, k) =>
      core.intake.submit({ ...payloadFor(-1_001_000_000_001 - ((from + k) % 100), from + k) }),
    ),
  );
}
await core.desk.settle();
const after = await settled();
const pending = core.desk.list("pending").length;
const auditLines = core.audit.lastSeq;
process.stdout.write(
  `${JSON.stringify({
    n,
    pending,
    auditLines,
    heapUsedMB: after.heapUsed / 2 ** 20,
    rssMB: after.rss / 2 ** 20,
    emptyHeapUsedMB: before.heapUsed / 2 ** 20,
    emptyRssMB: before.rss / 2 ** 20,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
await core.close();
await tmp.remove();
