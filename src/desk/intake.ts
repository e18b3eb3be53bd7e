import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../clock/clock.js";
import { createDraft } from "../drafts/create.js";
import type { DraftPayload } from "../drafts/payload.js";
import { parsePayload } from "../channels/destination-payload.js";
import type { ChannelSet } from "../channels/channel-set.js";
import type { DraftRecord } from "../drafts/record.js";
import type { DraftStatus } from "../drafts/status.js";
import { KeyedQueue } from "../serial/keyed-queue.js";
import type { AudienceSource, RemovedItems, ReviewChat } from "./ports.js";
import { mayBeLong, prepareDraftText, type Redactor } from "./draft-text.js";
import { checkRevises, revisesFacts } from "./revises.js";
import type { ReviewDesk } from "./review-desk.js";
import { chooseSender, type SenderChoice } from "../drafts/sender-choice.js";
import type { SendAs } from "../drafts/sender.js";
import type { Audience } from "../drafts/audience.js";
import { destinationLabel } from "../channels/destination-payload.js";
import { destinationOf, type Choice } from "../drafts/choices.js";

/** Who a new draft goes out as (the owner's voice, src/business); absent: the bot only. */
export interface SenderChooser {
  /** `lookup`: the bot's view of a person (getChat), to name one the daemon did not see when the draft goes as the bot. */
  choose(
    p: { readonly send_as: SendAs; readonly destination_chat_id: string; readonly reply_to_message_id: number | null },
    lookup?: (chatId: string) => Promise<Audience>,
  ): Promise<SenderChoice>;
}

/** The contract's synchronous answer to a submitted draft. */
export interface SubmitAnswer {
  readonly draft_id: string;
  readonly review_message_id: number | null;
  readonly status: DraftStatus;
  /** Things the submitter should know that do not refuse the draft (a destination the bot cannot see). */
  readonly warnings?: readonly string[];
}

/** What became of a submission: accepted (new or replayed), refused, or a key conflict. */
export type SubmitOutcome =
  | { readonly ok: true; readonly created: boolean; readonly answer: SubmitAnswer }
  | { readonly ok: false; readonly kind: "invalid"; readonly field: string; readonly error: string }
  | { readonly ok: false; readonly kind: "conflict"; readonly error: string };

export type { Redactor } from "./draft-text.js";
export { trimLikeTelegram } from "./draft-text.js";

/** What intake needs besides the desk. */
export interface IntakeOptions {
  readonly desk: ReviewDesk;
  readonly reviewChat: ReviewChat;
  readonly clock: Clock;
  readonly ttlMs: number;
  /** The redactor, or null when PII_REDACTION=off. */
  readonly redact: Redactor | null;
  /** Who will read each destination (shown on the review post); none: not resolved. */
  readonly audience?: AudienceSource;
  readonly newDraftId?: () => string;
  /** Decides the sender identity (send_as); absent: no business connection, the bot only. */
  readonly sender?: SenderChooser;
  /** True in test mode: every draft made is marked `test_mode` (a live daemon leaves it alone). */
  readonly testMode?: boolean;
  /** Where the text before redaction is kept aside, for 🔓 Keep the removed items; absent: not kept. */
  readonly removedItems?: RemovedItems;
  /** The channels other than Telegram this daemon is configured for (contract v5); absent: none. */
  readonly channels?: ChannelSet | null;
}

/** A draft id: sortable by creation time, unguessable after it. */
export function newDraftId(now: number = Date.now()): string {
  return `d_${now.toString(36)}_${randomBytes(6).toString("hex")}`;
}

/** sha256 of the fields that define a submission, to tell a replay from a reused key. */
function payloadSha256(p: DraftPayload): string {
  const canonical = JSON.stringify([
    p.draft_text,
    p.destination_chat_id,
    p.destination_thread_id,
    p.drafted_by_role,
    p.originating_intent_id,
    // Only when set, so the hashes of drafts from before `revises` existed stay the same.
    ...(p.revises === null ? [] : [p.revises]),
    // Likewise only when not the defaults.
    ...(p.send_as === "bot" && p.reply_to_message_id === null ? [] : [p.send_as, p.reply_to_message_id]),
    ...(p.destination == null ? [] : [p.destination]),
    ...(p.destinations == null ? [] : [p.destinations, p.choose ?? "one"]),
  ]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/** The answer for a draft as it stands, with a warning when the bot cannot see or post to its destination. */
export function answerFor(draft: DraftRecord, extra: readonly string[] = []): SubmitAnswer {
  const answer = { draft_id: draft.draft_id, review_message_id: draft.review_message_id, status: draft.status };
  const problem = draft.channel_audience?.problem ?? draft.audience?.problem ?? null;
  const field = draft.destination === null ? "destination_chat_id" : "destination";
  const moved = draft.revises_destination;
  const warnings = [
    ...(problem === null ? [] : [`${field}: ${problem}`]),
    ...(moved === null
      ? []
      : [`destination_chat_id: differs from that of draft ${draft.revises} (${moved.chat_id}); the review post says so`]),
    ...extra,
  ];
  return warnings.length === 0 ? answer : { ...answer, warnings };
}

/** The sender choice without a business connection: the bot (saying why not the owner), or a refusal of `owner` to a group. */
function botOnly(p: DraftPayload): SenderChoice {
  return chooseSender({
    sendAs: p.send_as,
    destinationChatId: p.destination_chat_id,
    replyToMessageId: p.reply_to_message_id,
    connection: null,
    chat: undefined,
    botUsername: null,
    now: 0,
  });
}

/**
 * Turns an untrusted payload into a stored draft: validates it, honours the
 * idempotency key, redacts once (so the reviewer approves exactly what will be
 * sent), stores it, and posts it for review when the review chat has room.
 * HTTP, the CLI and test mode all submit through here.
 */
export class Intake {
  /** Submissions that share an idempotency key, one at a time. */
  private readonly byKey = new KeyedQueue();

  constructor(private readonly options: IntakeOptions) {}

  async submit(input: unknown): Promise<SubmitOutcome> {
    const check = parsePayload(input, this.options.channels ?? null);
    if (!check.ok) return { ok: false, kind: "invalid", field: check.field, error: check.error };
    const key = check.payload.idempotency_key;
    if (key === null) return this.accept(check.payload);
    // Two submissions with one key are taken one at a time, so only one draft is made.
    return this.byKey.run(key, () => this.acceptOnce(check.payload, key));
  }

  private async acceptOnce(payload: DraftPayload, key: string): Promise<SubmitOutcome> {
    const existing = await this.options.desk.findByIdempotency(key);
    if (!existing) return this.accept(payload);
    if (existing.payload_sha256 !== payloadSha256(payload)) {
      return {
        ok: false,
        kind: "conflict",
        error: `idempotency_key: "${key}" was already used for draft ${existing.draft_id} with a different payload; use a new key for a new draft`,
      };
    }
    return { ok: true, created: false, answer: answerFor(existing) };
  }

  private async accept(payload: DraftPayload): Promise<SubmitOutcome> {
    const { desk, clock, reviewChat } = this.options;
    // Telegram trims surrounding whitespace from what it delivers; trimming here
    // keeps the reviewed text identical to the delivered one.
    const prepared = prepareDraftText(payload.draft_text, this.options.redact, mayBeLong(payload));
    if (!prepared.ok) return { ok: false, kind: "invalid", field: "draft_text", error: `draft_text: ${prepared.error}` };
    const revises = await checkRevises(payload, desk, { testMode: this.options.testMode === true });
    if (!revises.ok) return { ok: false, kind: "invalid", field: "revises", error: revises.error };
    const earlier = revises.earlier;
    const { text, redaction } = prepared;
    const choice = await this.senderOf(payload);
    if (!choice.ok) return { ok: false, kind: "invalid", field: choice.field, error: choice.error };
    const choices = await this.choicesOf(payload, text);
    const first = choices ? destinationOf(choices[0]!) : null;
    const { audience, channelAudience } = first
      ? { audience: first.audience, channelAudience: first.channel_audience }
      : await this.audienceOf(payload, text, choice);
    const now = clock.now();
    const draftId = (this.options.newDraftId ?? newDraftId)();
    if (prepared.unredacted !== undefined) await this.keepUnredacted(draftId, prepared.textSha256, prepared.unredacted);
    const { draft, effects } = createDraft(
      payload,
      {
        draftId,
        text,
        textSha256: prepared.textSha256,
        payloadSha256: payloadSha256(payload),
        ttlMs: this.options.ttlMs,
        redaction,
        audience,
        revises: earlier === null ? null : revisesFacts(earlier, payload),
        testMode: this.options.testMode === true,
        // A plain bot draft keeps the record it always had (no named sender).
        sender: payload.send_as === "bot" ? null : choice.sender,
        answering: choice.answering,
        channelAudience,
        choices,
      },
      now,
    );
    // With room in the review chat the answer waits for the post (status pending);
    // without, the draft is answered as queued and posted at the next free slot.
    const postNow = reviewChat.claimFreeSlot();
    await desk.create(draft, postNow ? effects.filter((e) => e.type !== "post_review") : effects);
    // The earlier draft learns it was replaced (and stops awaiting a decision) before the new one is posted.
    // An archived one is final and stays as archived.
    if (earlier !== null && !revises.archived) await desk.markRevised(earlier.draft_id, draft.draft_id);
    if (postNow) await desk.post(draft.draft_id);
    return { ok: true, created: true, answer: answerFor(desk.get(draft.draft_id) ?? draft, choice.warnings) };
  }

  /** Who the draft goes out as: on Telegram as send_as asks (the owner's voice, src/business); elsewhere as the channel's credentials. */
  private async senderOf(payload: DraftPayload): Promise<SenderChoice> {
    if (payload.destination != null) return botOnly(payload);
    const source = this.options.audience;
    return (await this.options.sender?.choose(payload, source ? (id) => source.resolve(id) : undefined)) ?? botOnly(payload);
  }

  /** The destinations the owner picks among, each with who will read it, read now for the post; null: one destination. */
  private async choicesOf(payload: DraftPayload, text: string): Promise<Choice[] | null> {
    if (!payload.destinations) return null;
    const { channels, audience, clock } = this.options;
    return Promise.all(
      payload.destinations.map(async (d, i): Promise<Choice> => {
        const index = i + 1;
        if (d.channel === "telegram") {
          const a = (await audience?.resolve(d.chat_id)) ?? null;
          return {
            index,
            destination: null,
            destination_chat_id: d.chat_id,
            destination_thread_id: d.thread_id,
            audience: a,
            channel_audience: null,
          };
        }
        // Test mode's channels are offline (src/channels/configured.ts): the audience is made up, as at its send.
        const read = await channels!.readAudience(d, text, () => clock.now());
        return {
          index,
          destination: d,
          destination_chat_id: destinationLabel(d),
          destination_thread_id: null,
          audience: null,
          channel_audience: read,
        };
      }),
    );
  }

  /** Who will read it, read now for the post: Telegram's audience, or the other channel's. */
  private async audienceOf(payload: DraftPayload, text: string, choice: Extract<SenderChoice, { ok: true }>) {
    const channels = this.options.channels;
    if (payload.destination != null && channels) {
      // Test mode's channels are offline (src/channels/configured.ts): the audience is made up, as at its send.
      const channelAudience = await channels.readAudience(payload.destination, text, () => this.options.clock.now());
      return { audience: null, channelAudience };
    }
    // As the owner, the audience is the person the connection proves; the bot's own getChat may not know them.
    const audience = choice.audience ?? (await this.options.audience?.resolve(payload.destination_chat_id)) ?? null;
    return { audience, channelAudience: null };
  }

  /**
   * The text before redaction, kept aside (never in the store or the audit log) before the draft
   * exists and the intake answers, for 🔓 Keep the removed items. A failure does not refuse the
   * draft (it is reviewed as redacted; the button then says the items are gone): it is logged.
   */
  private async keepUnredacted(draftId: string, redactedSha256: string, text: string): Promise<void> {
    try {
      await this.options.removedItems?.keep({ draft_id: draftId, redacted_sha256: redactedSha256, text });
    } catch (err) {
      this.options.desk.log.warn(
        { err, draft_id: draftId },
        "could not keep the removed items of a redacted draft; 🔓 will say they are gone",
      );
    }
  }
}
