import { createHash } from "node:crypto";
import {
  AUDIENCE_UNREADABLE,
  type Channel,
  type ChannelAudience,
  type ChannelSendOutcome,
  type LostSendLookup,
  type SendReference,
} from "../../../src/channels/channel.js";
import { type AnyChannel, ChannelSet } from "../../../src/channels/channel-set.js";
import { EMAIL_MAX_LENGTH, emailDestinationSchema } from "../../../src/channels/email/index.js";
import { LINEAR_MAX_COMMENT_LENGTH, linearDestinationSchema } from "../../../src/channels/linear/index.js";
import { SLACK_TEXT_LIMIT, slackDestinationSchema } from "../../../src/channels/slack/index.js";
import type { OtherChannelName } from "../../../src/drafts/destination.js";

/** The channels the explorer sends on besides Telegram. */
export const EXPLORED_CHANNELS: readonly OtherChannelName[] = ["linear", "email", "slack"];

/** The destination of the explorer's drafts on each channel, as a payload names it. */
export const CHANNEL_DESTINATIONS: Readonly<Record<OtherChannelName, Record<string, unknown>>> = {
  linear: { channel: "linear", issue: "ENG-7", parent_comment_id: null },
  email: { channel: "email", to: ["anna@example.com"], cc: [], bcc: [], subject: "Thursday", in_reply_to: null, references: [] },
  slack: { channel: "slack", channel_id: "C0EXPLORE1", thread_ts: null },
};

/** Who reads a channel's destination: a tag the post shows (`[aud linear-small]`), how many, and why it needs the extra tap. */
export interface ChannelTruth {
  readonly tag: string;
  readonly readers: number;
  /** A confirm reason (over AUDIENCE_CONFIRM_OVER, an external address): a 👍 alone does not send. */
  readonly confirm: string | null;
}

/** The audiences a channel's destination can have. */
export const CHANNEL_AUDIENCES: Readonly<Record<string, Omit<ChannelTruth, "tag">>> = {
  small: { readers: 5, confirm: null },
  grown: { readers: 9, confirm: null },
  large: { readers: 5000, confirm: "5,000 members, over 1,000" },
  external: { readers: 2, confirm: "an external address never written to" },
};

/**
 * How the next send call on a channel ends: `lost_arrived` (the message is
 * there, the answer was lost), `lost_absent` (the answer was lost, the message
 * never arrived), `throws` (the client threw after the message arrived).
 */
export type ChannelSendPlan = "ok" | "refused" | "retry_after" | "not_sent" | "lost_arrived" | "lost_absent" | "throws";
/** How the next lookup after a lost answer ends: by what arrived (`normal`), the service cannot tell, or the client throws. */
export type LookupPlan = "normal" | "unknown" | "throws";

/** One send call on a channel, with what was true when it was made. */
export interface ChannelCall {
  readonly channel: OtherChannelName;
  readonly draftId: string;
  readonly reference: string;
  readonly text: string;
  readonly plan: ChannelSendPlan;
  /** The message reached its readers. */
  readonly arrived: boolean;
  /** Who reads the destination at the call. */
  readonly truth: ChannelTruth;
  /** The service answered who reads it at that moment (false: an audience read would have failed). */
  readonly readable: boolean;
  /** The service refused the credentials when the daemon making the call started (the channel is halted). */
  readonly credentialsRefusedAtStart: boolean;
}

/** One channel's service as the explorer sets it: who reads, whether it answers, what the next calls come to. */
export interface ChannelService {
  truth: ChannelTruth;
  answering: boolean;
  /** The service refuses the daemon's credentials: its channel is halted at the next start. */
  credentialsRefused: boolean;
  readonly sendPlans: ChannelSendPlan[];
  readonly lookupPlans: LookupPlan[];
  /** References of the messages that arrived. */
  readonly arrived: Set<string>;
}

/**
 * Linear, email and Slack as in-process services behind the real Channel
 * interface, destination schemas and limits (src/channels): the audience is
 * read from what the explorer set (a tag the post shows, so the model can
 * tell which audience a message showed), sends end as planned, and a lost
 * answer is looked up by the reference: found or absent on Linear and Slack,
 * never known on email (SMTP cannot tell). Every call is handed to `onCall`.
 */
export class FakeChannels {
  readonly services = new Map<OtherChannelName, ChannelService>(
    EXPLORED_CHANNELS.map((name) => [
      name,
      {
        truth: truthOf(name, "small"),
        answering: true,
        credentialsRefused: false,
        sendPlans: [],
        lookupPlans: [],
        arrived: new Set(),
      },
    ]),
  );
  readonly calls: ChannelCall[] = [];
  /** The channels whose service refused the credentials when the running daemon's channel set was made. */
  private refusedAtStart = new Set<OtherChannelName>();
  onCall: (call: ChannelCall) => void = () => {};

  /** A service by name. */
  service(name: OtherChannelName): ChannelService {
    return this.services.get(name)!;
  }

  /** Sets who reads `name`'s destination from now on. */
  setAudience(name: OtherChannelName, audience: string): void {
    this.service(name).truth = truthOf(name, audience);
  }

  /** A ChannelSet over the services, as the daemon builds one from the environment (one per start). */
  channelSet(now: () => number): ChannelSet {
    this.refusedAtStart = new Set(EXPLORED_CHANNELS.filter((name) => this.service(name).credentialsRefused));
    return new ChannelSet(new Map(EXPLORED_CHANNELS.map((name): [OtherChannelName, AnyChannel] => [name, this.channel(name, now)])));
  }

  private channel(name: OtherChannelName, now: () => number): Channel<Record<string, unknown>> {
    const schemas = { linear: linearDestinationSchema, email: emailDestinationSchema, slack: slackDestinationSchema };
    const limits = { linear: LINEAR_MAX_COMMENT_LENGTH, email: EMAIL_MAX_LENGTH, slack: SLACK_TEXT_LIMIT };
    return {
      name,
      maxLength: limits[name],
      destinationSchema: schemas[name] as never,
      whoAmI: async () =>
        this.service(name).credentialsRefused
          ? { ok: false, credentialsRefused: true, reason: "invalid_auth" }
          : { ok: true, speaksAs: `the explorer on ${name}` },
      readAudience: async () => this.audience(name, now),
      send: async (_d, text, reference) => this.send(name, text, reference),
      findSent: async (_d, reference) => this.findSent(name, reference),
      rateKey: () => name,
    };
  }

  private audience(name: OtherChannelName, now: () => number): ChannelAudience {
    const s = this.service(name);
    const checkedAt = new Date(now()).toISOString();
    // As the real channels answer when the service does not: no count, the extra tap, a fingerprint of "unread".
    if (!s.answering)
      return {
        channel: name,
        readerCount: null,
        lines: [`${name} destination: the audience could not be read (service not answering)`],
        confirmReasons: [AUDIENCE_UNREADABLE],
        problem: null,
        fingerprint: `${name}:unread`,
        checkedAt,
      };
    const t = s.truth;
    return {
      channel: name,
      readerCount: t.readers,
      lines: [`${name} destination [aud ${t.tag}]`, `${t.readers} people read it`],
      confirmReasons: t.confirm === null ? [] : [t.confirm],
      problem: null,
      fingerprint: createHash("sha256").update(JSON.stringify(t)).digest("hex").slice(0, 16),
      checkedAt,
    };
  }

  private send(name: OtherChannelName, text: string, reference: SendReference): ChannelSendOutcome {
    const s = this.service(name);
    const plan = s.sendPlans.shift() ?? "ok";
    const arrived = plan === "ok" || plan === "lost_arrived" || plan === "throws";
    if (arrived) s.arrived.add(reference.reference);
    const call: ChannelCall = {
      channel: name,
      draftId: reference.draftId,
      reference: reference.reference,
      text,
      plan,
      arrived,
      truth: s.truth,
      readable: s.answering,
      credentialsRefusedAtStart: this.refusedAtStart.has(name),
    };
    this.calls.push(call);
    this.onCall(call);
    switch (plan) {
      case "ok":
        return { kind: "ok", sentRef: { reference: reference.reference } };
      case "refused":
        return { kind: "refused", reason: `${name} refused it for good (not found)` };
      case "retry_after":
        return { kind: "retry_after", seconds: 5, reason: `${name} is rate limited` };
      case "not_sent":
        return { kind: "not_sent", reason: `${name} could not be reached` };
      case "lost_arrived":
      case "lost_absent":
        return { kind: "unknown", reason: `${name}'s answer was lost` };
      case "throws":
        throw new Error(`${name}'s client threw`);
    }
  }

  private findSent(name: OtherChannelName, reference: SendReference): LostSendLookup {
    if (name === "email") return { kind: "unknown", reason: "email cannot be looked up" };
    const s = this.service(name);
    const plan = s.lookupPlans.shift() ?? "normal";
    if (plan === "throws") throw new Error(`${name}'s lookup threw`);
    if (plan === "unknown") return { kind: "unknown", reason: `${name} could not be asked` };
    return s.arrived.has(reference.reference) ? { kind: "found", sentRef: { reference: reference.reference } } : { kind: "absent" };
  }
}

function truthOf(name: OtherChannelName, audience: string): ChannelTruth {
  return { tag: `${name}-${audience}`, ...CHANNEL_AUDIENCES[audience]! };
}
