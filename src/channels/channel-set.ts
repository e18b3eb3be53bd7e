import type { ChannelAudienceRecord, OtherChannelName, StoredDestination } from "../drafts/destination.js";
import { AUDIENCE_UNREADABLE, type Channel, type ChannelAudience } from "./channel.js";

/** What a channel that is not configured needs, for the refusal at intake (contract v5 "Configuration"). */
export const CHANNEL_VARIABLES: Readonly<Record<OtherChannelName, string>> = {
  linear: "LINEAR_API_KEY (and LINEAR_API_URL for an endpoint other than Linear's)",
  email: "SMTP_URL and EMAIL_FROM (EMAIL_RATE and EMAIL_CONFIRM_OVER are optional)",
  slack: "SLACK_TOKEN (and SLACK_API_URL for an endpoint other than Slack's)",
};

/** The channel a destination names, typed loosely: each channel checks its own destination. */
export type AnyChannel = Channel<any>;

/**
 * The channels other than Telegram this daemon is configured for, and which
 * of them refused their credentials at start (halted: posted for review,
 * never sent). Built once at start from the configuration.
 */
export class ChannelSet {
  private readonly halted = new Map<OtherChannelName, string>();

  constructor(private readonly channels: ReadonlyMap<OtherChannelName, AnyChannel>) {}

  /** The channel for `name`, or undefined when it is not configured. */
  get(name: OtherChannelName): AnyChannel | undefined {
    return this.channels.get(name);
  }

  /** The configured channels, in the contract's order. */
  names(): OtherChannelName[] {
    return [...this.channels.keys()];
  }

  /** Marks a channel halted because its service refused the credentials (why, in words). */
  halt(name: OtherChannelName, why: string): void {
    this.halted.set(name, why);
  }

  /** Why a channel is halted for its credentials, or null. */
  haltedWhy(name: OtherChannelName): string | null {
    return this.halted.get(name) ?? null;
  }

  /** Every halted channel with why (for /healthz). */
  haltedChannels(): { channel: OtherChannelName; reason: string }[] {
    return [...this.halted].map(([channel, reason]) => ({ channel, reason }));
  }

  /**
   * Who will read `text` at `destination`, as the record keeps it. Never
   * throws: a channel that fails is an audience that could not be read, which
   * asks for the extra tap (fails closed).
   */
  async readAudience(destination: StoredDestination, text: string, now: () => number): Promise<ChannelAudienceRecord> {
    const channel = this.get(destination.channel);
    if (channel === undefined) return unreadable(destination.channel, "the channel is not configured on this daemon", now);
    const halted = this.haltedWhy(destination.channel);
    if (halted !== null) return haltedAudience(destination.channel, halted, now);
    try {
      const parsed = channel.destinationSchema.parse(destination);
      return audienceRecord(await channel.readAudience(parsed, text));
    } catch (err) {
      return unreadable(destination.channel, `the audience could not be read: ${(err as Error).message}`, now);
    }
  }
}

/** A channel's audience as the record keeps it (snake_case, like every stored field). */
export function audienceRecord(a: ChannelAudience): ChannelAudienceRecord {
  return {
    channel: a.channel as OtherChannelName,
    reader_count: a.readerCount,
    lines: [...a.lines],
    confirm_reasons: [...a.confirmReasons],
    problem: a.problem,
    fingerprint: a.fingerprint,
    checked_at: a.checkedAt,
  };
}

/** The audience of a channel halted for its credentials: nothing can be read there, and nothing is sent. */
function haltedAudience(channel: OtherChannelName, why: string, now: () => number): ChannelAudienceRecord {
  return {
    channel,
    reader_count: null,
    lines: [`⛔ ${channel} refused the daemon's credentials`],
    confirm_reasons: [],
    problem: `${channel} refused the daemon's credentials (${why}): nothing is sent there until they are fixed and the daemon restarted`,
    fingerprint: `halted:${why}`,
    checked_at: new Date(now()).toISOString(),
  };
}

/** An audience nobody could read: no count, the extra tap asked, why in words. */
function unreadable(channel: OtherChannelName, why: string, now: () => number): ChannelAudienceRecord {
  return {
    channel,
    reader_count: null,
    lines: [`⚠️ ${why}`],
    confirm_reasons: [AUDIENCE_UNREADABLE],
    problem: null,
    fingerprint: `unreadable:${why}`,
    checked_at: new Date(now()).toISOString(),
  };
}
