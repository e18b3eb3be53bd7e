/**
 * 3. Intake: drafts accepted per second through the real daemon's HTTP API
 * (POST /drafts, bearer token, PII redaction on as by default), `concurrency`
 * clients on keep-alive connections. The review chat allows one post a second,
 * so nearly every draft is answered `queued` (its review post waits for a slot):
 * the figure is the durable intake path, store and audit log fsync'd.
 * Beside it, the disk's raw rate of one process appending a line + fdatasync.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { startTelegramDouble } from "../test/telegram-double/index.js";
import { startDaemon } from "./daemon.js";
import { BENCH_API_TOKEN, draftText, OWNER, quantile, tempDir } from "./support.js";

/** What one intake run came to. */
export interface IntakeResult {
  readonly concurrency: number;
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers by status (pending, queued) and refusals by HTTP status. */
  readonly answers: Record<string, number>;
}

const GROUP = -1_001_234_567_890;

/** The disk's raw rate: appends per second, and each fdatasync's latency. */
export interface RawFsync {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Appends + fdatasyncs one ~1.2 kB line (a store line's size) in a loop for `ms`. */
export function rawFsyncRate(dir: string, ms = 2000): RawFsync {
  const path = join(dir, "raw-fsync.jsonl");
  const fd = openSync(path, "a", 0o600);
  const line = Buffer.from(`${JSON.stringify({ pad: "x".repeat(1180) })}\n`);
  const syncs: number[] = [];
  const started = performance.now();
  try {
    while (performance.now() - started < ms) {
      writeSync(fd, line);
      const t = performance.now();
      fdatasyncSync(fd);
      syncs.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
  }
  const perSecond = syncs.length / ((performance.now() - started) / 1000);
  return { perSecond, p50Ms: quantile(syncs, 0.5), p99Ms: quantile(syncs, 0.99) };
}

async function post(apiUrl: string, i: number): Promise<{ ms: number; key: string }> {
  const body = JSON.stringify({
    draft_text: draftText(i),
    destination_chat_id: String(GROUP),
    destination_thread_id: null,
    drafted_by_role: "Scribe",
    originating_intent_id: `intake-bench-${i}`,
    idempotency_key: `intake-bench-${i}`,
  });
  const t = performance.now();
  const res = await fetch(`${apiUrl}/drafts`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_API_TOKEN}`, "content-type": "application/json" },
    body,
  });
  const answer = (await res.json()) as { status?: string };
  const ms = performance.now() - t;
  return { ms, key: res.status === 201 ? String(answer.status) : `HTTP ${res.status}` };
}

/** `requests` POSTs by `concurrency` clients; numbering from `first` keeps payloads unique across runs. */
async function load(apiUrl: string, concurrency: number, requests: number, first: number): Promise<IntakeResult> {
  const latencies: number[] = [];
  const answers: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const client = async () => {
    for (let i = next++; i < requests; i = next++) {
      const r = await post(apiUrl, first + i);
      latencies.push(r.ms);
      answers[r.key] = (answers[r.key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  return {
    concurrency,
    requests,
    perSecond: requests / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    answers,
  };
}

/** Runs the daemon against the double and loads its API at each concurrency (after a warm-up). */
export async function intakeRuns(
  runs: ReadonlyArray<{ concurrency: number; requests: number }>,
): Promise<{ results: IntakeResult[]; stoppedOnTerm: boolean }> {
  const double = await startTelegramDouble({
    chats: [
      { id: OWNER, type: "private", firstName: "Owner" },
      { id: GROUP, type: "supergroup" },
    ],
    users: [{ id: OWNER, firstName: "Owner" }],
    rateLimits: true,
  });
  const tmp = await tempDir("intake");
  try {
    const daemon = await startDaemon({ cwd: tmp.dir, harnessDir: join(tmp.dir, ".harness"), double, env: { LOG_LEVEL: "info" } });
    const results: IntakeResult[] = [];
    let stoppedOnTerm = false;
    try {
      await load(daemon.apiUrl, 8, 300, 0);
      let first = 1_000;
      for (const run of runs) {
        results.push(await load(daemon.apiUrl, run.concurrency, run.requests, first));
        first += run.requests;
      }
    } finally {
      // With thousands of review posts queued, SIGTERM waits for them; a few seconds show whether it stops.
      stoppedOnTerm = await daemon.stop(5_000);
    }
    return { results, stoppedOnTerm };
  } finally {
    await double.stop();
    await tmp.remove();
  }
}

/** The raw fsync'd append rate in a temp dir (the same disk as the daemon's), then the intake runs. */
export async function intakeRawAndRuns(): Promise<{ raw: RawFsync; runs: IntakeResult[]; stoppedOnTerm: boolean }> {
  const tmp = await tempDir("raw-fsync");
  let raw: RawFsync;
  try {
    raw = rawFsyncRate(tmp.dir);
  } finally {
    await tmp.remove();
  }
  const { results, stoppedOnTerm } = await intakeRuns([
    { concurrency: 16, requests: 3000 },
    { concurrency: 1, requests: 300 },
  ]);
  return { raw, runs: results, stoppedOnTerm };
}
