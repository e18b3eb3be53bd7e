import { GrammyError, HttpError } from "grammy";
import { hideTokenShapes } from "../log/token-shape.js";
import type { SendCallOutcome } from "../channels/telegram/send-call.js";

/** Network error codes that prove the request never reached the server. */
const NEVER_LEFT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ERR_INVALID_URL"]);

function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code ?? e?.errno;
  return typeof code === "string" ? code : undefined;
}

/**
 * An error text with the bot token taken out. node-fetch's messages carry the
 * request URL (`.../bot<token>/sendMessage`), and a send's reason is stored,
 * audited, served by the API and shown in the review chat, so it must never
 * hold the token; the logger's scrubbing does not reach those places.
 */
export function withoutToken(text: string): string {
  return hideTokenShapes(text.replace(/\/bot[^/\s]*/g, "/bot<token>"), "<token>");
}

/**
 * Turns what a grammY call threw into the send path's outcome. The rule:
 * only an answer from Telegram, or an error that proves the request never
 * left, counts as "not sent"; everything else (timeouts, resets, 5xx, an
 * unreadable answer) may have been delivered and is "unknown".
 */
export function classifySendError(err: unknown): SendCallOutcome {
  if (err instanceof GrammyError) {
    const reason = `${err.error_code}: ${err.description}`;
    if (err.error_code === 429) {
      const seconds = Math.max(1, Number(err.parameters.retry_after ?? 1));
      return { kind: "retry_after", seconds, reason };
    }
    if (err.error_code >= 500) return { kind: "unknown", reason: `Telegram answered ${reason}` };
    return { kind: "refused", reason };
  }
  if (err instanceof HttpError) {
    const code = codeOf(err.error);
    if (code !== undefined && NEVER_LEFT.has(code)) return { kind: "not_sent", reason: `network: ${code}` };
    const detail = code ?? (err.error instanceof Error ? withoutToken(err.error.message) : "no answer");
    return { kind: "unknown", reason: `no answer from Telegram (${detail})` };
  }
  return { kind: "unknown", reason: `unexpected error: ${withoutToken(err instanceof Error ? err.message : String(err))}` };
}

/** Is this error Telegram saying an edit changed nothing? (Harmless; ignored.) */
export function isNotModified(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /message is not modified/i.test(err.description);
}

/** Is this error Telegram saying the topic (message_thread_id) a message went to does not exist (any more)? */
export function isThreadGone(err: unknown): boolean {
  return (
    err instanceof GrammyError && err.error_code === 400 && /message thread not found|TOPIC_DELETED|TOPIC_ID_INVALID/i.test(err.description)
  );
}

/**
 * Is this error Telegram refusing a reply because its target is not there: deleted, or (in a chat
 * with topics, where allow_sending_without_reply does not apply) in another topic?
 */
export function isReplyTargetGone(err: unknown): boolean {
  return (
    err instanceof GrammyError &&
    err.error_code === 400 &&
    /message to be replied not found|replied message not found/i.test(err.description)
  );
}
