/**
 * 6. Cost after a long history, alone in its process:
 *   `node history-child.js generate <dir> <n>`: writes what the daemon would have
 *     left after `n` finished drafts (50 a day, the last one yesterday): the store
 *     with each draft's final record, and the audit log with ten chained
 *     transition lines per draft (its whole life), no checkpoint, no archive.
 *   `node history-child.js start <dir>`: one start of the core (store replay,
 *     audit index, archiving of drafts past DRAFT_RETENTION = 21d, the same live
 *     set at every size: see HISTORY_RETENTION), then a
 *     clean stop. Prints one JSON line: seconds, peak RSS, what was held.
 */
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { openCore } from "../src/app/core.js";
import { systemClock } from "../src/clock/clock.js";
import { transitionEntry } from "../src/desk/audit-entries.js";
import { resumeDrafts } from "../src/desk/recovery.js";
import { unlimited } from "../src/send/limiter.js";
import { encodeLine } from "../src/store/line-codec.js";
import { FakeReviewChat } from "../src/test-mode/fake-review-chat.js";
import { lifecycle } from "./records.js";
import { benchConfig, silentLogger } from "./support.js";

const DAY = 86_400_000;
/**
 * DRAFT_RETENTION of every size's starts: 21 days keeps the last 1,000 drafts of the
 * cadence (50 a day, the last one yesterday) live at every size, so 1k, 10k and 100k
 * differ only by their history (archived drafts, audit lines), which is what the
 * comparison is about. At the default 30d the 1k history (20 days) would hold 1,000
 * live drafts and the others 1,449, and the ratio would mostly measure that.
 */
const HISTORY_RETENTION = process.env.BENCH_HISTORY_RETENTION ?? "21d";
const SOURCE = "telegram-draft-for-review";

async function generate(dir: string, n: number): Promise<void> {
  const store = await open(join(dir, "telegram_drafts.jsonl"), "w", 0o600);
  const audit = await open(join(dir, "swarm.jsonl"), "w", 0o600);
  const end = Date.now() - DAY;
  let seq = 0;
  let hash = "";
  let storeParts: string[] = [];
  let auditParts: string[] = [];
  const flush = async () => {
    await store.write(storeParts.join(""));
    await audit.write(auditParts.join(""));
    storeParts = [];
    auditParts = [];
  };
  for (let i = 0; i < n; i++) {
    const versions = lifecycle(i, end - (n - i) * (DAY / 50) - 40 * DAY);
    // lifecycle spans days; shift so the draft ends at its slot.
    const shift = end - (n - i) * (DAY / 50) - Date.parse(versions.at(-1)!.updated_at);
    const shifted = versions.map((v) => ({
      ...v,
      updated_at: new Date(Date.parse(v.updated_at) + shift).toISOString(),
      drafted_at: new Date(Date.parse(v.drafted_at) + shift).toISOString(),
    }));
    let from = null as (typeof shifted)[number]["status"] | null;
    for (const v of shifted) {
      const entry = transitionEntry(from, v, { type: "recovered" });
      seq++;
      const line = `{"ts":${JSON.stringify(v.updated_at)},"source":"${SOURCE}","seq":${seq},"prev_hash":"${hash}",${JSON.stringify(entry).slice(1)}`;
      hash = createHash("sha256").update(line).digest("hex");
      auditParts.push(`${line}\n`);
      from = v.status;
    }
    const last = shifted.at(-1)!;
    storeParts.push(encodeLine(Object.assign({ draft_id: last.draft_id }, last)));
    if (auditParts.length >= 20_000) await flush();
  }
  await flush();
  await store.sync();
  await audit.sync();
  await store.close();
  await audit.close();
  process.stdout.write(`${JSON.stringify({ drafts: n, auditLines: seq })}\n`);
}

async function start(dir: string): Promise<void> {
  const started = performance.now();
  const log = silentLogger();
  const config = benchConfig(
    dir,
    { token: "123456789:AAbenchbenchbenchbenchbenchbenchben", url: "http://127.0.0.1:9" },
    { DRAFT_RETENTION: HISTORY_RETENTION },
  );
  const core = await openCore(config, log, {
    clock: systemClock(),
    makeReviewChat: (existing) => new FakeReviewChat(config.reviewChatId, existing, log),
    sendCall: async () => ({ kind: "not_sent", reason: "no network in this benchmark" }),
    limiter: unlimited(),
    redact: null,
    processSwitchValue: undefined,
    envFilePath: join(dir, ".env"),
  });
  await resumeDrafts(core.desk);
  await core.desk.settle();
  const seconds = (performance.now() - started) / 1000;
  const usage = process.memoryUsage();
  const result = {
    seconds,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    rssMB: usage.rss / 2 ** 20,
    heapUsedMB: usage.heapUsed / 2 ** 20,
    liveDrafts: core.store.latest.size,
    auditFromCheckpoint: core.audit.opened.fromCheckpoint,
    auditBytesRead: core.audit.opened.bytesRead,
    index: core.audit.index.sizes,
  };
  await core.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const [mode, dir, n] = process.argv.slice(2);
if (mode === "generate") await generate(dir!, Number(n));
else if (mode === "start") await start(dir!);
else throw new Error("usage: history-child.js generate <dir> <n> | start <dir>");
