/**
 * Channel drains: approved drafts to Slack conversations and to the mailbox,
 * sent through the channel limiter at real time (scale 1: the limiter counts a
 * window from each send's end, so a shortened window would be measured
 * against the send's own duration). The rate is read at the doubles: Slack's
 * message ts (its clock at handling), the SMTP double's arrival of each
 * message in full. Efficiency is the span an ideal sender needs (no latency,
 * never refused) over the span from the first arrival to the last.
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

/** `n` drafts to the mailbox at EMAIL_RATE=`ratePerMinute` (the SMTP double enforces no limit of its own). */
export async function emailDrain(n: number, ratePerMinute: number): Promise<{ drain: KeyDrain; firstWindowMs: number }> {
  const bench = await openChannelBench({ conversations: 0, emailRate: ratePerMinute });
  const arrivals = smtpArrivals(bench.smtp);
  try {
    const drafts = await submitTo(
      bench.core,
      Array.from({ length: n }, (_, i) => emailTo(i)),
    );
    await approveAll(bench.core, drafts);
    const permitted = permittedSpan(n, ratePerMinute, 60_000);
    await until(() => arrivals.at.length >= n, permitted * 1.5 + 10_000);
    const at = arrivals.at;
    const window = Math.min(n, ratePerMinute);
    return {
      drain: { key: "email", sent: at.length, drafts: n, spanMs: at.length > 0 ? at.at(-1)! - at[0]! : 0, permittedSpanMs: permitted },
      firstWindowMs: at.length >= window ? at[window - 1]! - at[0]! : Number.NaN,
    };
  } finally {
    arrivals.stop();
    await bench.close();
  }
}
