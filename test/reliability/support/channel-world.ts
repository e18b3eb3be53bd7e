/**
 * The world of the channel crash sweep: the Bot API double for the review
 * chat, and the SMTP, Slack and Linear doubles the approved drafts go to,
 * seeded so that no draft needs an extra tap (recipients in EMAIL_FROM's
 * domain, small conversations and teams). It says what each service received
 * for a draft, and everything it received, for the checks.
 */
import { startEmailDouble, type EmailDouble } from "../../doubles/email/email-double.js";
import { startLinearDouble, type LinearDouble } from "../../doubles/linear/index.js";
import { startSlackDouble, type SlackDouble } from "../../doubles/slack/index.js";
import type { TelegramDouble } from "../../telegram-double/index.js";
import { daemonEnv, sweepDouble } from "./sweep-world.js";

/** The three channels the sweep sends on. */
export const SWEEP_CHANNELS = ["linear", "email", "slack"] as const;
export type SweepChannel = (typeof SWEEP_CHANNELS)[number];

/** EMAIL_FROM: recipients in its domain need no extra tap. */
const FROM = "phill@example.com";
/** The Slack conversations drafts go to, in turn (Slack's pace is one message a second per conversation). */
const CONVERSATIONS = ["C0SWEEP001", "C0SWEEP002", "C0SWEEP003"];

/** One message a service received: which draft text it carries and how to find it again. */
export interface Arrival {
  readonly channel: SweepChannel;
  readonly text: string;
  /** Linear: the comment id; Slack: the ts; email: the Message-ID. */
  readonly ref: string;
  /** Slack: the draft id its metadata names; otherwise null. */
  readonly draftId: string | null;
}

/** The running doubles. */
export interface ChannelWorld {
  readonly telegram: TelegramDouble;
  readonly email: EmailDouble;
  readonly slack: SlackDouble;
  readonly linear: LinearDouble;
  /** The issue drafts comment on (ENG-1). */
  readonly issue: string;
  /** The daemon's environment: every channel pointed at its double. */
  env(extra?: Record<string, string>): Record<string, string>;
  /**
   * The payload of draft `n` to `channel` (its text names both, so it is unique). With `choice`
   * (1 or 2) it carries two `destinations` (choose one), `channel`'s at that place and another
   * channel's at the other.
   */
  payload(channel: SweepChannel, n: number, lane: number, choice?: 1 | 2): Record<string, unknown>;
  /** Everything the three services received, oldest first per service. */
  arrivals(): Arrival[];
  close(): Promise<void>;
}

function seedSlack(slack: SlackDouble): string {
  const token = slack.addToken({ userId: "U0OWNER001", userName: "phill" }, "xoxp-sweep-token-1");
  for (const [i, id] of CONVERSATIONS.entries())
    slack.addConversation({ id, name: `sweep-${i + 1}`, kind: "public", members: ["U0OWNER001", "U0ANNA0001", "U0BOB00001"] });
  return token;
}

function seedLinear(linear: LinearDouble): string {
  const ws = linear.state.workspace;
  const me = ws.addUser({ name: "Phill Owner" }, { viewer: true });
  const anna = ws.addUser({ name: "Anna Lee" });
  const team = ws.addTeam({ key: "ENG", name: "Engineering", members: [me, anna] });
  return ws.identifier(ws.addIssue(team, { title: "Login fails on Safari", subscribers: [me, anna] }));
}

function arrivalsOf(w: Pick<ChannelWorld, "email" | "slack" | "linear">): Arrival[] {
  const out: Arrival[] = [];
  // The world seeds no comment: every one is the daemon's.
  for (const c of w.linear.state.workspace.comments.values()) out.push({ channel: "linear", text: c.body, ref: c.id, draftId: null });
  for (const m of w.email.state.messages)
    out.push({ channel: "email", text: m.body.toString("utf8"), ref: m.parsed.messageId ?? "", draftId: null });
  for (const id of CONVERSATIONS)
    for (const m of w.slack.messages(id)) {
      const named = m.metadata?.event_payload.draft_id;
      out.push({ channel: "slack", text: m.text, ref: m.ts, draftId: typeof named === "string" ? named : null });
    }
  return out;
}

/** Starts the four doubles and seeds them. */
export async function startChannelWorld(): Promise<ChannelWorld> {
  const [telegram, email, slack, linear] = await Promise.all([sweepDouble(), startEmailDouble(), startSlackDouble(), startLinearDouble()]);
  const token = seedSlack(slack);
  const issue = seedLinear(linear);
  const world: ChannelWorld = {
    telegram,
    email,
    slack,
    linear,
    issue,
    env: (extra = {}) =>
      daemonEnv(telegram, {
        SMTP_URL: email.url,
        EMAIL_FROM: FROM,
        EMAIL_RATE: "600",
        SLACK_TOKEN: token,
        SLACK_API_URL: slack.url,
        LINEAR_API_KEY: linear.apiKey,
        LINEAR_API_URL: linear.url,
        TELEGRAM_RATE_SCALE: "50",
        UNDO_WINDOW: "0",
        ...extra,
      }),
    payload: (channel, n, lane, choice) => ({
      draft_text: `Sweep ${lane}-${n} on ${channel}: the fix ships on Thursday.`,
      ...destinationsOf(channel, n, issue, choice),
      drafted_by_role: "Scribe",
      originating_intent_id: `channel-sweep-${lane}-${n}`,
    }),
    arrivals: () => arrivalsOf(world),
    async close() {
      await Promise.all([telegram.stop(), email.close(), slack.close(), linear.close()]);
    },
  };
  return world;
}

/** `destination`, or two `destinations` with `channel`'s at place `choice` and the next channel's at the other. */
function destinationsOf(channel: SweepChannel, n: number, issue: string, choice: 1 | 2 | undefined): Record<string, unknown> {
  const mine = destinationOf(channel, n, issue);
  if (choice === undefined) return { destination: mine };
  const other = destinationOf(SWEEP_CHANNELS[(SWEEP_CHANNELS.indexOf(channel) + 1) % SWEEP_CHANNELS.length]!, n, issue);
  return { destinations: choice === 1 ? [mine, other] : [other, mine], choose: "one" };
}

function destinationOf(channel: SweepChannel, n: number, issue: string): Record<string, unknown> {
  if (channel === "linear") return { channel, issue, parent_comment_id: null };
  if (channel === "slack") return { channel, channel_id: CONVERSATIONS[n % CONVERSATIONS.length], thread_ts: null };
  return { channel, to: ["anna@example.com"], cc: [], bcc: [], subject: `Sweep ${n}`, in_reply_to: null, references: [] };
}
