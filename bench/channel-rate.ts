/**
 * Channel drains: approved drafts to Slack conversations and to the mailbox,
 * sent through the channel limiter at real time (scale 1: the limiter counts a
 * window from each call's answer and the next send's own work comes on top, a
 * fixed cost a shortened window would magnify). The rate is read at the
 * doubles: Slack's message ts (its clock at handling), the SMTP double's
 * arrival of each message in full. Efficiency is the span an ideal sender
 * needs (no latency, never refused) over the span from the first arrival to
 * the last.
 */
import type { Core } from "../src/app/core.js";
import type { EmailDouble } from "../test/doubles/email/email-double.js";
import { approve } from "./core-fixture.js";
import { conversation, emailTo, openChannelBench, slackTo, submitTo, type BenchDestination, type Submitted } from "./channel-fixture.js";
import { sleep } from "./support.js";

/** What one drain to one key (a conversation, the mailbox) came to. */
export interface KeyDrain {
  readonly key: string;
  readonly sent: number;
  readonly drafts: number;
  /** ms from the first arrival to the last. */
  readonly spanMs: number;
  readonly permittedSpanMs: number;
}

/** Ideal span over the span measured (1 = as fast as the window allows); 0 when it did not finish. */
export function keyEfficiency(d: KeyDrain): number {
  if (d.sent < d.drafts) return 0;
  return d.spanMs <= 0 ? 1 : d.permittedSpanMs / d.spanMs;
}

/** The last send of `n` by an ideal sender under `max` sends per `lengthMs` (sliding), the first at 0. */
export function permittedSpan(n: number, max: number, lengthMs: number): number {
  return Math.floor((n - 1) / max) * lengthMs;
}

/** Approves every draft, `concurrency` decisions at a time, as a reviewer's burst of 👍 would. */
async function approveAll(core: Core, drafts: readonly Submitted[], concurrency = 20): Promise<void> {
  for (let from = 0; from < drafts.length; from += concurrency) {
    await Promise.all(drafts.slice(from, from + concurrency).map((d) => approve(core, d.reviewId)));
  }
}

/** Resolves once `done()` or after `timeoutMs`, polling every 50 ms (the times themselves come from the doubles). */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done() && Date.now() < end) await sleep(50);
}

/**
 * `each` drafts to each of `conversations` Slack conversations, interleaved,
 * against the double enforcing Slack's posting limit (one a second per
 * conversation, refused with 429 and counted).
 */
export async function slackDrain(conversations: number, each: number): Promise<{ drains: KeyDrain[]; tooManyRequests: number }> {
  const bench = await openChannelBench({ conversations, emailRate: 20 });
  try {
    bench.slack.state.perConversationMs = 1000;
    const destinations: BenchDestination[] = [];
    for (let k = 0; k < each; k++) for (let c = 0; c < conversations; c++) destinations.push(slackTo(c));
    const drafts = await submitTo(bench.core, destinations);
    const posted = (c: number) => bench.slack.state.messages.get(conversation(c)) ?? [];
    await approveAll(bench.core, drafts);
    const all = () => Array.from({ length: conversations }, (_, c) => posted(c).length).every((n) => n >= each);
    await until(all, (each - 1) * 1000 * 1.5 + 10_000);
    const drains = Array.from({ length: conversations }, (_, c): KeyDrain => {
      const at = posted(c).map((m) => Number(m.ts) * 1000);
      return {
        key: conversation(c),
        sent: at.length,
        drafts: each,
        spanMs: at.length > 0 ? Math.max(...at) - Math.min(...at) : 0,
        permittedSpanMs: permittedSpan(each, 1, 1000),
      };
    });
    return { drains, tooManyRequests: bench.slack.state.rateLimited.get("chat.postMessage") ?? 0 };
  } finally {
    await bench.close();
  }
}

/** performance.now() of each message the SMTP double received in full: every answer held until the next hold is set. */
function smtpArrivals(smtp: EmailDouble): { readonly at: number[]; stop(): void } {
  const at: number[] = [];
  let stopped = false;
  const arm = (): void => {
    const hold = smtp.holdNext();
    void hold.received.then(() => {
      if (!stopped) {
        at.push(performance.now());
        arm();
      }
      hold.release();
    });
  };
  arm();
  return { at, stop: () => (stopped = true) };
}

/** When each of `n` drafts to the mailbox arrived at the SMTP double (performance.now()), at EMAIL_RATE=`ratePerMinute`. */
export async function emailDrain(n: number, ratePerMinute: number): Promise<number[]> {
  const bench = await openChannelBench({ conversations: 0, emailRate: ratePerMinute });
  const arrivals = smtpArrivals(bench.smtp);
  try {
    const drafts = await submitTo(
      bench.core,
      Array.from({ length: n }, (_, i) => emailTo(i)),
    );
    await approveAll(bench.core, drafts);
    await until(() => arrivals.at.length >= n, permittedSpan(n, ratePerMinute, 60_000) * 1.5 + 20_000);
    return [...arrivals.at];
  } finally {
    arrivals.stop();
    await bench.close();
  }
}

/**
 * Once the window binds: each send's rate over the window it closes, the
 * `max` sends before it included (EMAIL_RATE a minute over that minute and a
 * bit), as a share of the limit; the lowest of them. NaN when none bound.
 */
export function boundRate(at: readonly number[], max: number, lengthMs: number): number {
  let lowest = Number.NaN;
  for (let k = max; k < at.length; k++) {
    const share = lengthMs / (at[k]! - at[k - max]!);
    if (!(share >= lowest)) lowest = share;
  }
  return lowest;
}
