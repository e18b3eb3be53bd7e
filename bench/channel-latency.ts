/**
 * Decision -> the channel's call, per channel, while its limiter has free
 * capacity: one approval at a time, each to a key nothing else is sent to
 * (Slack: its own conversation; email: EMAIL_RATE=10000; Linear: no window).
 * Measured in process, performance.now() on both sides (the doubles run in
 * this process, as the Telegram latency row's double does):
 *   total:   desk.decide() called -> the call at the double (Linear: the
 *            commentCreate request arrived, unexecuted; Slack: chat.postMessage
 *            handled; email: the message received in full, the whole SMTP
 *            dialogue included);
 *   service: the time the path waits on the service before the call (the
 *            audience read again before the send: Slack's and Linear's ask
 *            the service; email's is local and counts as ours);
 *   call:    desk.decide() -> the channel client's send() called.
 */
import type { OtherChannelName } from "../src/drafts/destination.js";
import { approve } from "./core-fixture.js";
import { emailTo, linearOn, openChannelBench, slackTo, submitTo, type BenchDestination, type ChannelBench } from "./channel-fixture.js";
import { sleep } from "./support.js";

/** Gap between two decisions (as the Telegram latency row). */
const GAP_MS = 40;

/** Per decision, ms from the decision to: the call at the double, the send() call; and the service's time before it. */
export interface ChannelStages {
  readonly total: number[];
  readonly service: number[];
  readonly call: number[];
}

/** Resolves when the double has the channel's next call; release() lets it answer. */
function nextCall(bench: ChannelBench, channel: OtherChannelName): { arrived: Promise<number>; release(): void } {
  const stamp = () => performance.now();
  if (channel === "linear") {
    const hold = bench.linear.holdNext("commentCreate");
    return { arrived: hold.arrived.then(stamp), release: () => hold.release() };
  }
  if (channel === "slack") {
    const hold = bench.slack.holdNext("chat.postMessage");
    return { arrived: hold.handled.then(stamp), release: () => hold.release() };
  }
  const hold = bench.smtp.holdNext();
  return { arrived: hold.received.then(stamp), release: () => hold.release() };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what} did not arrive within ${ms} ms`)))]);
}

function destinationsFor(channel: OtherChannelName, n: number, issue: string): BenchDestination[] {
  return Array.from({ length: n }, (_, i) => (channel === "slack" ? slackTo(i) : channel === "email" ? emailTo(i) : linearOn(issue)));
}

/** `samples` decisions after `warmup` unmeasured ones, to `channel`, each stage timed. */
export async function channelLatency(channel: OtherChannelName, samples: number, warmup: number): Promise<ChannelStages> {
  const n = samples + warmup;
  const bench = await openChannelBench({ conversations: channel === "slack" ? n : 0, emailRate: 10_000 });
  try {
    const drafts = await submitTo(bench.core, destinationsFor(channel, n, bench.issue));
    await bench.core.desk.settle();
    const out: ChannelStages = { total: [], service: [], call: [] };
    for (let i = 0; i < n; i++) {
      const { arrived, release } = nextCall(bench, channel);
      bench.marks.serviceMs = 0;
      const t = performance.now();
      const decided = approve(bench.core, drafts[i]!.reviewId);
      const at = await within(arrived, 10_000, `the ${channel} call of sample ${i}`);
      const service = bench.marks.serviceMs;
      release();
      await decided;
      if (i >= warmup) {
        out.total.push(at - t);
        out.service.push(service);
        out.call.push(bench.marks.sendCalled.get(drafts[i]!.draftId)! - t);
      }
      await sleep(GAP_MS);
    }
    return out;
  } finally {
    await bench.close();
  }
}
