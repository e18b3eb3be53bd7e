import type { Audience } from "./audience.js";
import type { ChannelAudienceRecord, SentRefRecord } from "./destination.js";
import type { Actor, Decision, RedactionSummary } from "./record.js";

/**
 * Everything that can happen to a draft after it was created. The state
 * machine decides, per status, which of these apply.
 */
export type DraftEvent =
  /** The review post went out; Telegram gave it this message id. */
  | { readonly type: "posted"; readonly reviewChatId: string; readonly reviewMessageId: number; readonly reviewThreadId?: number | null }
  /** A reviewer decided. Authorisation is checked before this event exists. */
  | {
      readonly type: "decide";
      readonly decision: Decision;
      readonly actor: Actor;
      /** The revision note, for `revise` by reply. */
      readonly note?: string | null;
      /** How far `defer` moves `expires_at`, in milliseconds (DEFER_FOR). */
      readonly deferMs: number;
      /** AUDIENCE_CONFIRM_OVER: over this many members a `send` needs `confirmed`; null or absent: never. */
      readonly confirmOver?: number | null;
      /**
       * Among several destinations (payload `destinations`): the one a button or a reply's number
       * picked (from 1). Absent: the first (a 👍), or the one the confirmation question named.
       */
      readonly destination?: number | null;
      /** The reviewer's extra tap ("Yes, send") for a large audience. */
      readonly confirmed?: boolean;
      /** How long an approval waits before its send, in milliseconds (UNDO_WINDOW); 0 or absent: at once. */
      readonly undoMs?: number;
      /** The text version the reviewer saw; a decision on another version is refused. Absent: not checked. */
      readonly textVersion?: number;
      /** The audience fingerprint the reviewer saw (audienceFingerprint); another is refused. Absent: not checked. */
      readonly audience?: string;
      /** The sender identity the reviewer saw (sendIdentity); another is refused. Absent: not checked. */
      readonly identity?: string;
      /**
       * "🤖 Send as the bot instead" on a draft the owner's identity could not send: the draft goes
       * out as the bot (named here) and this is a new approval, for that identity.
       */
      readonly asBot?: { readonly username: string | null };
      /**
       * Why sends are halted at this moment (the kill switch, read when the decision is applied), or
       * absent/null: they are not. A `send` made while halted is answered as halted at once.
       */
      readonly halted?: string | null;
      /** With `halted`: false when that halt is over already (it came and went after the tap): 👍 is offered again at once. */
      readonly haltLasts?: boolean;
      /**
       * When the reviewer acted, as Telegram dated it (ms): a note added to a revise counts if given
       * inside its undo window, as an undo does. Absent or null: now.
       */
      readonly actedAt?: number | null;
    }
  /**
   * `choose: "any"`: a reviewer's tap on a destination's toggle (its index, from 1), bound like a decision to
   * the text version and the set of destinations its message showed.
   */
  | {
      readonly type: "toggle";
      readonly destination: number;
      readonly actor: Actor;
      readonly textVersion?: number;
      readonly audience?: string;
    }
  /** A reviewer replaced the text (already checked and redacted as at intake). */
  | {
      readonly type: "edit";
      readonly text: string;
      readonly textSha256: string;
      readonly redaction: RedactionSummary | null;
      readonly actor: Actor;
      /** The text version the reviewer edited; another version is refused. Absent: not checked. */
      readonly textVersion?: number;
      /** "🔓 Keep the removed items": the text is the one submitted, with what redaction removed (the audit line says `restored`). */
      readonly restored?: boolean;
      /** Linear, email or Slack: who the new text reaches there, read again (a mention may notify others). */
      readonly channelAudience?: ChannelAudienceRecord;
      /** The same per destination among several (by index), for those on Linear, email or Slack. */
      readonly choiceAudiences?: ReadonlyArray<{ readonly index: number; readonly channel_audience: ChannelAudienceRecord }>;
    }
  /** A reviewer took back an approval within UNDO_WINDOW. */
  | {
      readonly type: "undo";
      readonly actor: Actor;
      /**
       * When the reviewer acted, as Telegram dated it (ms; Telegram's dates are whole seconds, so one
       * dated before `send_after` may have been inside the window and counts). Absent: now. Null:
       * unknown (a ↩️ tap, which Telegram does not date, that waited while the daemon was down).
       */
      readonly actedAt?: number | null;
    }
  /**
   * Telegram accepted (answered the call for) the edit or message that shows the draft's approval
   * with its ↩️ Undo: the undo window counts from `at` (contract v4).
   */
  | {
      readonly type: "undo_shown";
      /** When Telegram answered (ms, the injected clock). */
      readonly at: number;
      /** The record version the message showed: an approval made since is not the one shown. */
      readonly version: number;
      /** The send time the message shows (ms), when it shows one: the send is not earlier. */
      readonly sendAt: number | null;
    }
  /** The kill switch's halt that stopped this draft ended: its post offers 👍 Send again. */
  | { readonly type: "halt_lifted" }
  /** A later draft names this one in `revises`. */
  | { readonly type: "revised"; readonly byDraftId: string }
  /**
   * The expiry timer fired (or start-up found `expires_at` passed); `whileDown`: it passed while the
   * daemon was down longer than Telegram keeps a tap (ISO-8601 UTC, from its last poll to this start).
   */
  | { readonly type: "expire"; readonly whileDown?: { readonly since: string; readonly until: string } }
  /** The kill switch stopped the send at the call boundary. */
  | {
      readonly type: "halt";
      readonly reason: string;
      /** The destination as found at the send call, when it changed (shown with the draft for the new 👍). */
      readonly audience?: Audience;
      /** On Linear, email or Slack: who reads it now, when that changed (the post shows it for the new 👍). */
      readonly channelAudience?: ChannelAudienceRecord;
      /** A group that became a supergroup: its new id becomes the destination. */
      readonly destinationChatId?: string;
      /** The kill switch is halted now (not only a halt since the approval): no 👍 is offered until it ends. */
      readonly lasting?: boolean;
    }
  /**
   * The send path is about to call the channel: record the intent first. `reference`: the channel's own
   * id chosen before the call (Linear's comment id, the email's Message-ID, Slack's metadata), kept from
   * the draft's first send on; absent: Telegram, which has none.
   */
  /**
   * `delivery`: among several destinations at once, the delivery whose checks (audience, sender, switch) were made
   * for this send (the record's `chosen` then); refused when another is under way by now. Absent: one destination.
   */
  | { readonly type: "send_intent"; readonly reference?: string; readonly delivery?: number | null }
  /** The call was definitely not made or not accepted (429, connection refused): back to `approved`. */
  | { readonly type: "send_retry"; readonly reason: string }
  /** The channel accepted the message: Telegram's message id, or another channel's `sent_ref`. */
  | { readonly type: "send_ok"; readonly messageId: number | null; readonly sentRef?: SentRefRecord }
  /** Telegram refused the message for good (400, 403, ...). */
  | { readonly type: "send_failed"; readonly reason: string }
  /** Nobody can tell whether Telegram got it (timeout after the request left, crash mid-send). */
  | { readonly type: "send_unknown"; readonly reason: string };

/** The `type` of a `DraftEvent`. */
export type DraftEventType = DraftEvent["type"];
