/**
 * Linear, email and Slack (contract v5) for the benchmarks: their doubles
 * (test/doubles) started and seeded, and an in-process core whose drafts to
 * them go through the daemon's own channel clients (channelsFromEnv) and its
 * channel limiter (keyedWindowLimiter with the channels' windows), wired as
 * src/daemon/start-steps.ts channelEdges wires them. The review chat is test
 * mode's (no network); Telegram is not part of these rows.
 */
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import type { Core } from "../src/app/core.js";
import { type AnyChannel, ChannelSet } from "../src/channels/channel-set.js";
import { channelsFromEnv } from "../src/channels/configured.js";
import { systemClock } from "../src/clock/clock.js";
import type { OtherChannelName } from "../src/drafts/destination.js";
import { keyedWindowLimiter, slidingWindowLimiter } from "../src/send/sliding-limiter.js";
import { Api } from "grammy";
import { startEmailDouble, type EmailDouble } from "../test/doubles/email/email-double.js";
import { startLinearDouble, type LinearDouble } from "../test/doubles/linear/index.js";
import { startSlackDouble, type SlackDouble } from "../test/doubles/slack/index.js";
import { startTelegramDouble } from "../test/telegram-double/index.js";
import { openBenchCore } from "./core-fixture.js";
import { benchConfig, draftText, OWNER, silentLogger, tempDir } from "./support.js";

/** The Slack conversation of index `i` (each has three members). */
export const conversation = (i: number) => `C0BENCH${String(i).padStart(3, "0")}`;

/** In-process marks of the channel clients, for the latency rows. */
export interface ChannelMarks {
  /** performance.now() when a channel's send() was called, by draft id. */
  readonly sendCalled: Map<string, number>;
  /** ms spent in audience reads that ask the service (Slack, Linear) since the last reset: the service's time on the path. */
  serviceMs: number;
}

/** A core with the three channels pointed at their doubles. */
export interface ChannelBench {
  readonly core: Core;
  readonly smtp: EmailDouble;
  readonly slack: SlackDouble;
  readonly linear: LinearDouble;
  /** The Linear issue drafts comment on (ENG-1). */
  readonly issue: string;
  readonly marks: ChannelMarks;
  close(): Promise<void>;
}

/** Each channel's calls observed: send() called, and the time its audience reads spend at the service. */
function observed(set: ChannelSet, marks: ChannelMarks): ChannelSet {
  const wrap = (name: OtherChannelName, c: AnyChannel): AnyChannel => ({
    ...c,
    send: (d, text, ref) => {
      marks.sendCalled.set(ref.draftId, performance.now());
      return c.send(d, text, ref);
    },
    readAudience: async (d, text) => {
      const t = performance.now();
      try {
        return await c.readAudience(d, text);
      } finally {
        if (name !== "email") marks.serviceMs += performance.now() - t;
      }
    },
  });
  return new ChannelSet(new Map(set.names().map((name) => [name, wrap(name, set.get(name)!)])));
}

/**
 * The Linear double reads Linear's schema from beside its module; tsc does not
 * copy it into dist-bench, so the benchmark copies it from the source tree.
 */
async function linearSchemaBesideDouble(): Promise<void> {
  const from = join(import.meta.dirname, "..", "..", "test", "doubles", "linear", "schema.graphql");
  await copyFile(from, join(import.meta.dirname, "..", "test", "doubles", "linear", "schema.graphql"));
}

async function seededDoubles(conversations: number) {
  const smtp = await startEmailDouble();
  const slack = await startSlackDouble();
  const token = slack.addToken({ userId: "U0OWNER001", userName: "phill" }, "xoxp-bench-token-1");
  for (let i = 0; i < conversations; i++) {
    slack.addConversation({ id: conversation(i), name: `bench-${i}`, kind: "public", members: ["U0OWNER001", "U0ANNA0001", "U0BOB00001"] });
  }
  await linearSchemaBesideDouble();
  const linear = await startLinearDouble();
  const ws = linear.state.workspace;
  const me = ws.addUser({ name: "Phill Owner" }, { viewer: true });
  const anna = ws.addUser({ name: "Anna Lee" });
  const team = ws.addTeam({ key: "ENG", name: "Engineering", members: [me, anna] });
  const issue = ws.identifier(ws.addIssue(team, { title: "Login fails on Safari", subscribers: [me, anna] }));
  const env = {
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Phill <phill@example.com>",
    SLACK_TOKEN: token,
    SLACK_API_URL: slack.url,
    LINEAR_API_KEY: linear.apiKey,
    LINEAR_API_URL: linear.url,
  };
  return { smtp, slack, linear, issue, env };
}

/** Starts the doubles (`conversations` Slack conversations) and a core sending to them; EMAIL_RATE is `emailRate`. */
export async function openChannelBench(opts: { conversations: number; emailRate: number }): Promise<ChannelBench> {
  const { smtp, slack, linear, issue, env } = await seededDoubles(opts.conversations);
  const telegram = await startTelegramDouble({ chats: [{ id: OWNER, type: "private", firstName: "Owner" }] });
  const tmp = await tempDir("channels");
  const config = benchConfig(tmp.dir, telegram);
  const configured = await channelsFromEnv(
    { ...env, EMAIL_RATE: String(opts.emailRate) },
    { now: Date.now, confirmOver: config.audienceConfirmOver },
  );
  if (!configured.ok || configured.channels === null) throw new Error(`channels not configured: ${JSON.stringify(configured)}`);
  const marks: ChannelMarks = { sendCalled: new Map(), serviceMs: 0 };
  const clock = systemClock();
  const core = await openBenchCore(config, silentLogger(), {
    api: new Api(telegram.token, { apiRoot: telegram.url }),
    limiter: slidingWindowLimiter(clock),
    clock,
    channels: observed(configured.channels, marks),
    channelLimiter: keyedWindowLimiter(clock, { global: null, windowsFor: configured.windowsFor, pauseCapMs: 0 }),
  });
  return {
    core,
    smtp,
    slack,
    linear,
    issue,
    marks,
    async close() {
      await core.close();
      await Promise.all([smtp.close(), slack.close(), linear.close(), telegram.stop()]);
      await tmp.remove();
    },
  };
}

/** Where a benchmark draft goes. */
export type BenchDestination = Record<string, unknown> & { channel: OtherChannelName };

/** A Slack message to conversation `i`, outside any thread. */
export const slackTo = (i: number): BenchDestination => ({ channel: "slack", channel_id: conversation(i), thread_ts: null });
/** An email to a colleague (EMAIL_FROM's domain: no extra tap). */
export const emailTo = (i: number): BenchDestination => ({
  channel: "email",
  to: ["anna@example.com"],
  subject: `Q${(i % 4) + 1} plan (#${i})`,
});
/** A comment on the bench issue, not in a thread. */
export const linearOn = (issue: string): BenchDestination => ({ channel: "linear", issue, parent_comment_id: null });

/** A submitted draft: its id and its review post's. */
export interface Submitted {
  readonly draftId: string;
  readonly reviewId: number;
}

/** Submits one draft per destination (posted at once to the fake review chat), in order. */
export async function submitTo(core: Core, destinations: readonly BenchDestination[], concurrency = 20): Promise<Submitted[]> {
  const ids = new Array<Submitted>(destinations.length);
  for (let from = 0; from < destinations.length; from += concurrency) {
    await Promise.all(
      destinations.slice(from, from + concurrency).map(async (destination, k) => {
        const i = from + k;
        const payload = { draft_text: draftText(i), destination, drafted_by_role: "Scribe", originating_intent_id: `bench-ch-${i}` };
        const outcome = await core.intake.submit(payload);
        if (!outcome.ok || outcome.answer.review_message_id === null) throw new Error(`submit failed: ${JSON.stringify(outcome)}`);
        ids[i] = { draftId: outcome.answer.draft_id, reviewId: outcome.answer.review_message_id };
      }),
    );
  }
  return ids;
}
