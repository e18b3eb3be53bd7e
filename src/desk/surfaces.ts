import { withChoice } from "../drafts/choices.js";
import type { AuditLog } from "../audit/audit-log.js";
import type { AuditEntryOf, SurfaceAsks, SurfaceState } from "../audit/audit-schema.js";
import { audienceFingerprint, sendIdentity } from "../drafts/audience.js";
import type { Channel, Decision, DraftRecord } from "../drafts/record.js";

/**
 * Decision surfaces: every message that carries a decision control (the
 * review post, a confirmation question, an edit prompt, a /resume
 * confirmation, the question a reply "ok" gets, the ⏰ reminder), and every
 * notice about a draft, records what it showed when it was sent or last
 * edited: the draft, its text version, its audience fingerprint, the identity
 * it goes out as, and what it asks. A decision is judged against the surface
 * it was made on (`judgeSurface`), and how it came (a tap, a reaction, a
 * reply), never against the callback data or the draft's state alone:
 * anything outdated or used counts for nothing.
 *
 * A new kind of surface needs three things, all here: an `asks` value (the
 * audit schema's SURFACE_ASKS), what it takes (a line of PERMITS), and a `Shown`
 * for its subject. Surfaces are made only by `surfaceLine`, judged only by
 * `judgeSurface`, and every reviewer action passes `DecisionSurfaces.gate`.
 */

/**
 * What a reviewer does on a surface. `prompt`: the ✏️ Edit button; `edit`: the new text; `asbot`: 🤖 Send as the bot instead;
 * `restore`: 🔓 Keep the removed items (a new text version, like an edit).
 */
export type SurfaceAction = "decide" | "confirm" | "prompt" | "edit" | "undo" | "resume" | "asbot" | "restore" | "toggle";

/** How an action came: a tap on one of the message's buttons, or a reaction or a reply on it (Telegram's update type, not a claim). */
export type Via = "tap" | "reaction" | "reply";

/** An action on a surface, and how it came. */
export interface Act {
  readonly does: SurfaceAction;
  readonly via: Via;
  /**
   * A revise or a defer: it never sends, so who reads and as whom, as the message showed them, do not
   * bind it (the text version still does). A 😴 on the post before its edit shows a new approval's
   * identity still stops that approval inside its undo window.
   */
  readonly withdraws?: boolean;
}

/** The act judged on a message: what it does, how it came, and whether it withdraws (a revise or a defer). */
export function actOf(does: SurfaceAction, channel: Channel, decision: Decision | null): Act {
  return { does, via: viaOf(channel), withdraws: does === "decide" && decision !== null && decision !== "send" };
}

/** How an action by this channel came (test mode's reactions are reactions; a command's button is a tap). */
export function viaOf(channel: Channel): Via {
  if (channel === "button" || channel === "command") return "tap";
  return channel === "reply" ? "reply" : "reaction";
}

/** What a kind of surface takes. */
interface Permit {
  /** The actions it permits; anything else on it is refused. */
  readonly actions: readonly SurfaceAction[];
  /** A question: answered by its buttons only (a reaction or a reply on it changes nothing), and once. */
  readonly question?: true;
  /** It stands for the draft's review post (itself, or the post its `post` names): it counts while that post is the live one. */
  readonly livePost?: true;
}

/** What each kind of surface takes: the one table. */
const PERMITS: Record<SurfaceAsks, Permit> = {
  // `toggle`: a destination's toggle when he picks any of several (on the post only, never on its reminder).
  decide: { actions: ["decide", "prompt", "edit", "undo", "restore", "toggle"], livePost: true },
  // The ⏰ reminder: a tap, a reaction or a reply on it counts as on the post it stands for.
  remind: { actions: ["decide", "prompt", "edit", "undo", "restore"], livePost: true },
  edit: { actions: ["edit"] },
  // A message showing an approval's ↩️ Undo (in place of a deleted post): an undo, or a change of mind (👎, 😴, a
  // note) while that approval waits (reviewer-actions refuses a decision there once the draft is no longer approved).
  undo: { actions: ["undo", "decide"] },
  confirm: { actions: ["confirm"], question: true },
  resume: { actions: ["resume"], question: true },
  asbot: { actions: ["asbot"], question: true },
  // A reply that is only an approval word ("ok"): send, or revise with that reply as the note.
  ask: { actions: ["decide"], question: true },
  // A notice or an answer about a draft: it takes nothing; an action on it is answered with the way to the live post.
  notice: { actions: [] },
};

/** True for a question (a surface that counts once, and only by a tap): once used, its buttons go. */
export function isOneTime(asks: SurfaceAsks): boolean {
  return PERMITS[asks].question === true;
}

/** The action a question's buttons make (what "does it still hold?" is judged with), or null for a surface that is no question. */
export function questionAction(asks: SurfaceAsks): SurfaceAction | null {
  const permit = PERMITS[asks];
  return permit.question ? (permit.actions[0] ?? null) : null;
}

/** What a subject (a draft, or the owner's halt) is now, in the fields a surface records. */
export interface Shown {
  readonly draft_id: string | null;
  readonly text_version: number | null;
  readonly audience: string | null;
  readonly identity: string;
  /** The owner's halt now (a /resume confirmation binds to it). */
  readonly halt?: string | null;
  /** The draft's live review post: a `decide` surface elsewhere is a replaced post. */
  readonly liveMessageId?: number | null;
  /** Among several destinations: the identity of each (a surface showing any of them still holds). */
  readonly identities?: readonly string[];
}

/** A draft as a surface shows it. */
export function shownOfDraft(draft: DraftRecord): Shown {
  return {
    draft_id: draft.draft_id,
    text_version: draft.text_version,
    audience: audienceFingerprint(draft),
    identity: sendIdentity(draft),
    liveMessageId: draft.review_message_id,
    ...(draft.choices === null ? {} : { identities: draft.choices.map((c) => sendIdentity(withChoice(draft, c.index)!)) }),
  };
}

/** The owner's halt as a /resume confirmation shows it (`halt`: its identity, null: none). */
export function shownOfHalt(halt: string | null): Shown {
  return { draft_id: null, text_version: null, audience: null, identity: "bot", halt };
}

/** What a surface showed, as its subject would be now: a message with no subject to compare is judged as it is. */
export function shownAsRecorded(surface: SurfaceState): Shown {
  const { draft_id, text_version, audience, identity } = surface;
  return { draft_id, text_version, audience, identity, halt: surface.halt ?? null, liveMessageId: surface.post ?? surface.message_id };
}

/** Where a surface is. */
export interface SurfaceWhere {
  readonly chatId: string;
  readonly messageId: number;
}

/** What an action claims about itself (untrusted: callback data). */
export interface Claim {
  readonly draftId?: string | undefined;
  readonly token?: string | undefined;
}

/** What some surfaces record besides what they showed. */
export interface SurfaceExtra {
  readonly token?: string;
  readonly until?: number;
  readonly update_id?: number;
  readonly note?: string;
  readonly post?: number;
  readonly question?: string;
}

/** The one way a surface's audit line is made. */
export function surfaceLine(asks: SurfaceAsks, where: SurfaceWhere, shown: Shown, extra: SurfaceExtra = {}): AuditEntryOf<"surface"> {
  return {
    kind: "surface",
    chat_id: where.chatId,
    message_id: where.messageId,
    asks,
    draft_id: shown.draft_id,
    text_version: shown.text_version,
    audience: shown.audience,
    identity: shown.identity,
    ...(asks === "resume" ? { halt: shown.halt ?? null } : {}),
    ...extra,
  };
}

/** Why an action on a surface does not count. */
export type SurfaceRefusal =
  | "button_names_another_draft"
  | "token_mismatch"
  | "wrong_surface"
  | "surface_used"
  | "taps_only"
  | "surface_expired"
  | "not_live_post"
  | "outdated_version"
  | "outdated_audience"
  | "outdated_identity"
  | "outdated_halt";

/** The verdict on an action made on a surface. */
export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: SurfaceRefusal };

/**
 * The rule, in one place: an action counts only if the surface it was made
 * on is not used up, permits it (a question: only by a tap on its buttons), is
 * not expired, names what the action claims, and showed exactly what its
 * subject is now (the live post, text version, audience, identity, halt).
 * A reaction or a reply on a question that still holds is `taps_only`: it
 * changes nothing, and the answer says to tap a button. Pure.
 */
export function judgeSurface(surface: SurfaceState, now: Shown, act: Act, claim: Claim, at: number): Verdict {
  const no = (reason: SurfaceRefusal): Verdict => ({ ok: false, reason });
  const permit = PERMITS[surface.asks];
  if (claim.draftId !== undefined && claim.draftId !== surface.draft_id) return no("button_names_another_draft");
  if (claim.token !== undefined && claim.token !== surface.token) return no("token_mismatch");
  if (surface.used) return no("surface_used");
  // A reaction or a reply on a question never counts; whether the question still holds decides what the answer says.
  const notTapped = permit.question === true && act.via !== "tap";
  if (!notTapped && !permit.actions.includes(act.does)) return no("wrong_surface");
  if (surface.until !== undefined && surface.until <= at) return no("surface_expired");
  if (surface.draft_id !== now.draft_id) return no("wrong_surface");
  if (permit.livePost && now.liveMessageId !== (surface.post ?? surface.message_id)) return no("not_live_post");
  if (surface.text_version !== now.text_version) return no("outdated_version");
  // Only an edit prompt written before surfaces existed lacks an audience: it asks for a text, not a decision.
  const binds = act.withdraws !== true;
  if (binds && surface.audience !== now.audience && !(surface.audience === null && surface.asks === "edit")) return no("outdated_audience");
  if (binds && surface.identity !== now.identity && !now.identities?.includes(surface.identity)) return no("outdated_identity");
  if (surface.asks === "resume" && (surface.halt ?? null) !== (now.halt ?? null)) return no("outdated_halt");
  return notTapped ? no("taps_only") : { ok: true };
}

/** True for the refusals whose answer points to the live post. */
export function pointsToLivePost(reason: string): boolean {
  return (
    reason === "not_live_post" ||
    reason === "unknown_review_message" ||
    reason === "wrong_surface" ||
    reason === "surface_used" ||
    reason === "surface_expired" ||
    reason.startsWith("outdated_")
  );
}

/**
 * The desk's view of the surfaces: the audit index's book (durable, read back
 * with zod from the checkpoint and the log) plus which messages belong to
 * which live draft. Every reviewer action passes `gate`.
 */
export class DecisionSurfaces {
  private readonly byMessage = new Map<number, string>();
  /**
   * Review posts of drafts posted before surfaces were recorded: derived from the draft's record as it
   * was at start (records are never changed in place), when first asked for, so that a start costs
   * nothing per finished draft (see derivedAt).
   */
  private readonly derived = new Map<number, DraftRecord | SurfaceState>();

  constructor(private readonly audit: AuditLog) {
    for (const s of audit.index.surfaces.all()) if (s.draft_id !== null) this.byMessage.set(s.message_id, s.draft_id);
  }

  /** Notes a draft's review posts (live and replaced). `atStart`: a live post without a recorded surface gets one derived from the draft. */
  index(draft: DraftRecord, atStart = false): void {
    const live = draft.review_message_id;
    if (live !== null) this.byMessage.set(live, draft.draft_id);
    for (const old of draft.superseded_posts) this.byMessage.set(old, draft.draft_id);
    if (atStart && live !== null && draft.review_chat_id !== null && !this.audit.index.surfaces.byMessageId(live))
      this.derived.set(live, draft);
  }

  /** The surface derived for a post of a draft posted before surfaces were recorded (see `derived`). */
  private derivedAt(messageId: number): SurfaceState | undefined {
    const found = this.derived.get(messageId);
    if (found === undefined || !("draft_text" in found)) return found;
    const { kind: _, ...fields } = surfaceLine("decide", { chatId: found.review_chat_id!, messageId }, shownOfDraft(found));
    const surface: SurfaceState = { ...fields, used: false };
    this.derived.set(messageId, surface);
    return surface;
  }

  /** Records, durably, that a message now shows `shown` and asks `asks`. */
  async record(asks: SurfaceAsks, where: SurfaceWhere, shown: Shown, extra: SurfaceExtra = {}): Promise<void> {
    await this.audit.append([this.note(asks, where, shown, extra)]);
  }

  /** Takes a surface into account at once (a tap may come as soon as the message is out); returns its line, for the caller to write. */
  note(asks: SurfaceAsks, where: SurfaceWhere, shown: Shown, extra: SurfaceExtra = {}): AuditEntryOf<"surface"> {
    if (shown.draft_id !== null) this.byMessage.set(where.messageId, shown.draft_id);
    this.derived.delete(where.messageId);
    const line = surfaceLine(asks, where, shown, extra);
    this.audit.index.notePost(line);
    return line;
  }

  /** The surface at this message, if it is one. */
  at(chatId: string, messageId: number): SurfaceState | undefined {
    const recorded = this.audit.index.surfaces.at(chatId, messageId);
    if (recorded) return recorded;
    const derived = this.derivedAt(messageId);
    return derived?.chat_id === chatId ? derived : undefined;
  }

  /**
   * The gate every reviewer action passes: judged against the surface it was
   * made on (see judgeSurface); a one-time surface that lets it through is
   * used up, on disk, before the action is applied.
   */
  async gate(surface: SurfaceState, now: Shown, act: Act, claim: Claim, at: number): Promise<Verdict> {
    const verdict = judgeSurface(surface, now, act, claim, at);
    if (verdict.ok && isOneTime(surface.asks)) await this.useUp(surface);
    return verdict;
  }

  /**
   * Uses a surface up, on disk: nothing on it counts any more. A question once
   * answered; a question or reminder the draft left behind (see closing.ts).
   */
  async useUp(surface: SurfaceState): Promise<void> {
    const used = { kind: "surface_used", chat_id: surface.chat_id, message_id: surface.message_id } as const;
    // Used at once, so a second tap in flight finds it used; a failed write leaves it used (fails closed).
    this.audit.index.notePost(used);
    await this.audit.append([used]);
  }

  /** The surfaces of a draft that are not used up (its reminders, questions, notices). Bounded by the live drafts' surfaces. */
  openOf(draftId: string): SurfaceState[] {
    return [...this.audit.index.surfaces.all()].filter((s) => s.draft_id === draftId && !s.used);
  }

  /** The surfaces of live drafts asking `asks` that are not used up. */
  openAsking(asks: SurfaceAsks): SurfaceState[] {
    return [...this.audit.index.surfaces.all()].filter((s) => s.asks === asks && s.draft_id !== null && !s.used);
  }

  /**
   * The first review post of `draftId` recorded after message `messageId` in `chatId`: what a post
   * a crash left unrecorded showed (the draft stays queued, unchanged, until it is posted again).
   */
  firstPostAfter(chatId: string, messageId: number, draftId: string): SurfaceState | undefined {
    let first: SurfaceState | undefined;
    const derived = [...this.derived].filter(([, d]) => d.draft_id === draftId).map(([m]) => this.derivedAt(m)!);
    for (const s of [...this.audit.index.surfaces.all(), ...derived]) {
      if (s.asks !== "decide" || s.draft_id !== draftId || s.chat_id !== chatId || s.message_id <= messageId) continue;
      if (first === undefined || s.message_id < first.message_id) first = s;
    }
    return first;
  }

  /** The id of the draft a message belongs to, if any. */
  draftIdOf(messageId: number): string | undefined {
    return this.byMessage.get(messageId);
  }

  /** True when the message belongs to some live draft. */
  has(messageId: number): boolean {
    return this.byMessage.has(messageId);
  }

  /** True when `messageId` is an edit prompt the bot sent. */
  isEditPrompt(messageId: number): boolean {
    return this.audit.index.surfaces.byMessageId(messageId)?.asks === "edit";
  }

  /** Forgets the messages of drafts that left the store (archived). */
  forget(gone: ReadonlySet<string>): void {
    for (const [messageId, id] of this.byMessage) if (gone.has(id)) this.byMessage.delete(messageId);
    for (const [messageId, s] of this.derived) if (s.draft_id !== null && gone.has(s.draft_id)) this.derived.delete(messageId);
  }
}
