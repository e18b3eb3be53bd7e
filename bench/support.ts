/**
 * Small pieces every benchmark shares: percentiles, temp dirs, a silent
 * logger, a clock whose timers run faster, a live-mode configuration.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { Clock, TimerHandle } from "../src/clock/clock.js";
import { loadConfig, type Config } from "../src/config/config.js";
import type { Logger } from "../src/log/logger.js";

/** A fixed intake API token for benchmark daemons (at least 16 characters). */
export const BENCH_API_TOKEN = "bench-api-token-0123456789abcdef";

/** The owner: a private review chat whose user is the reviewer. */
export const OWNER = 5_550_001;

/** Resolves after `ms` real milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The q-quantile (0..1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** A logger that writes nothing (the benchmarks measure, they do not log). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

/** A fresh temp dir, removed by the returned function. */
export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `draft-review-bench-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The wall clock, with every timer `scale` times shorter: retries after a 429
 * (retry_after is in Telegram seconds) then wait the scaled time, as Telegram's
 * limits do in the double. `scale` 1 is the system clock.
 */
export function scaledClock(scale: number): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn: () => void, ms: number): TimerHandle {
      const id = next++;
      const t = setTimeout(
        () => {
          timers.delete(id);
          fn();
        },
        Math.min(2_147_483_647, Math.max(0, ms / scale)),
      );
      t.unref();
      timers.set(id, t);
      return { id };
    },
    clearTimeout(handle: TimerHandle) {
      clearTimeout(timers.get(handle.id));
      timers.delete(handle.id);
    },
  };
}

/** A live-mode configuration as the daemon would parse it from the environment. */
export function benchConfig(harnessDir: string, double: { token: string; url: string }, extra: Record<string, string> = {}): Config {
  return loadConfig({
    TELEGRAM_BOT_TOKEN: double.token,
    TELEGRAM_API_ROOT: double.url,
    REVIEW_CHAT_ID: String(OWNER),
    HARNESS_DIR: harnessDir,
    DRAFT_API_PORT: "0",
    DRAFT_API_TOKEN: BENCH_API_TOKEN,
    PII_REDACTION: "off",
    LOG_LEVEL: "silent",
    // The latency target is for a send at once; the window's own effect is measured separately.
    UNDO_WINDOW: "0",
    ...extra,
  });
}

/** A realistic draft text of about `chars` characters (some non-ASCII, as real drafts have). */
export function draftText(i: number, chars = 320): string {
  const base =
    `Hi Anna, thanks for the notes on the Q${(i % 4) + 1} plan (#${i}). Thursday 10:00 works for me; ` +
    "I'll bring the revised budget and the list of open questions from Tuesday — Grüße to the team. " +
    "If the room is taken we can move to the café downstairs. Let me know what suits you best. ";
  let text = base;
  while (text.length < chars) text += base;
  return text.slice(0, chars).trimEnd();
}

/** Formats a number with `digits` decimals. */
export function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}
