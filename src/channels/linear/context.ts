/**
 * What every Linear call needs: a client with a deadline, the injected
 * clock, and the means to turn an error into words without the key.
 */
import type { LinearClient } from "@linear/sdk";
import type { ChannelSendOutcome } from "../channel.js";
import { classifyLinearError, type LinearFailure } from "./errors.js";

/** The channel's means, built once by `createLinearChannel`. */
export interface LinearContext {
  /** A fresh SDK client whose calls end after the request timeout. */
  readonly client: () => LinearClient;
  /** The injected clock (ms since the epoch). */
  readonly now: () => number;
  /** The request timeout in ms. */
  readonly timeoutMs: number;
  /** Removes the API key from any text. */
  readonly scrub: (text: string) => string;
}

/** The meaning of an error thrown by a call. */
export function failureOf(ctx: LinearContext, error: unknown): LinearFailure {
  return classifyLinearError(error, ctx.now(), Number((ctx.timeoutMs / 1000).toFixed(1)), ctx.scrub);
}

/** A failure as a send outcome, its words saying what it means for the comment. */
export function outcomeOf(f: LinearFailure): ChannelSendOutcome {
  switch (f.kind) {
    case "retry_after":
      return { kind: "retry_after", seconds: f.seconds, reason: `${f.reason}: not sent` };
    case "not_sent":
      return { kind: "not_sent", reason: `${f.reason}: not sent` };
    case "unknown":
      return { kind: "unknown", reason: `${f.reason}: the comment may or may not exist` };
    default:
      return { kind: "refused", reason: f.reason };
  }
}
