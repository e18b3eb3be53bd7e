import { ACCOUNTS, OWNER, PERSON, type ChatMessage, type ChatTruth, type DestinationCall, type ReviewerReply } from "./fake-telegram.js";
import type { DraftRecord } from "../../../src/drafts/record.js";
import type { ChannelCall } from "./fake-channels.js";
import type { Surface } from "./surface.js";
import { ChoiceLedger } from "./choices.js";
import { unansweredReplies, undoAfterSendProblem, undoShown, undoWindowProblem } from "./timeline.js";

/** An owner's action that may approve a send, or take an approval back. */
export interface OwnerAction {
  readonly step: number;
  readonly at: number;
  /** `approve`: a 👍 (reaction, reply, send button); `confirm`: a "Yes, send" tap; `undo`: a 👍 removed, ↩️, a reply `undo`. */
  readonly kind: "approve" | "confirm" | "undo";
  /** How it came: a question takes taps only (contract v4). */
  readonly channel: "reaction" | "button" | "reply";
  readonly how: string;
  readonly surface: Surface;
}

/** Who reads the destination as the desk could learn it at a send: `members` null when Telegram did not give the count. */
export type SeenTruth = Omit<ChatTruth, "members"> & { readonly members: number | null };

/** A destination sendMessage, stamped with what was true when it was made. */
export interface SendSeen {
  readonly step: number;
  readonly at: number;
  readonly call: DestinationCall;
  /** Who reads the destination at that moment; null when Telegram was not answering about it. */
  readonly truth: SeenTruth | null;
  /** A halt was in force before and after the step that sent (set false once the step ends unhalted). */
  haltedThroughout: boolean;
  /** A send on Linear, email or Slack: the call as the channel's service saw it (`truth` above is then null). */
  readonly channel?: ChannelCall;
}

/** What the explorer's rules say about who may read a send: AUDIENCE_CONFIRM_OVER, and how much growth an approval covers. */
export interface AudienceRules {
  readonly confirmOver: number;
  /** The count at the send may be this many times the one shown... */
  readonly growthCovered: number;
  /** ...or grow by fewer members than this. */
  readonly growthFloor: number;
}

/** What the explorer's rules say about when a send is allowed. */
export interface Rules extends AudienceRules {
  readonly undoWindowMs: number;
}

/**
 * The explorer's own record of what happened: the owner's actions with what
 * each message showed when he acted, when halts began, which texts belong to
 * which draft, and every send. It never asks the desk; the invariant is
 * judged from this record alone.
 */
export class ExploreModel {
  readonly actions: OwnerAction[] = [];
  readonly haltBegins: number[] = [];
  readonly sends: SendSeen[] = [];
  readonly violations: string[] = [];
  /** Drafts offered among several destinations, the owner's picks, and where each went (choices.ts). */
  readonly choices = new ChoiceLedger();
  /** Each text the owner's side wrote (a submission or an edit), and the draft it was for. */
  private readonly draftOfText = new Map<string, string>();
  /** Drafts a send may have reached (Telegram said ok, or nobody knows). */
  private readonly delivered = new Set<string>();
  private checked = 0;
  /** Sends whose ↩️ Undo outlived them, told once each. */
  private readonly staleUndoTold = new Set<SendSeen>();

  constructor(private readonly rules: Rules) {}

  /** Notes that `text` was written as (a version of) `draftId`. */
  noteText(text: string, draftId: string): void {
    if (!this.draftOfText.has(text)) this.draftOfText.set(text, draftId);
  }

  /**
   * Judges every send not judged yet, with the review chat as Telegram
   * accepted it (`chat`, every version with its acceptance time), and every
   * sent draft whose ↩️ Undo may still be offered at `now`; returns the new
   * violations.
   */
  checkNewSends(chat: readonly ChatMessage[], now: number): string[] {
    const found: string[] = [];
    for (; this.checked < this.sends.length; this.checked++) {
      const send = this.sends[this.checked]!;
      found.push(...this.judge(send), ...this.judgeUndoShown(send, chat));
    }
    for (const send of this.sends.slice(0, this.checked)) {
      const draftId = this.draftOfText.get(send.call.text);
      if (send.call.outcome !== "ok" || draftId === undefined || this.staleUndoTold.has(send)) continue;
      // Sent to several at once: a new approval of the deliveries not yet made (after a halt) offers its own ↩️ Undo.
      if (this.choices.approvedAfter(draftId, send.step)) continue;
      const stale = undoAfterSendProblem(undoShown(chat, draftId), send.at, now);
      if (stale === null) continue;
      this.staleUndoTold.add(send);
      found.push(`step ${send.step}: sendMessage of ${JSON.stringify(send.call.text)} (ok): ${stale}`);
    }
    this.violations.push(...found);
    return found;
  }

  /** The reviewer replies nothing answered (judged once the daemon had time for each); returns the new violations. */
  checkReplies(
    replies: readonly ReviewerReply[],
    answered: ReadonlySet<number>,
    chat: readonly ChatMessage[],
    starts: readonly number[],
  ): string[] {
    const found = unansweredReplies(replies, answered, new Map(chat.map((m) => [m.id, m])), starts).map(
      (r) => `the reviewer's reply ${JSON.stringify(r.text)} (message ${r.messageId}) to message ${r.target} was never answered`,
    );
    this.violations.push(...found);
    return found;
  }

  /** A send of a draft the explorer knows: its ↩️ Undo visible for the whole window before the call (contract v4). */
  private judgeUndoShown(send: SendSeen, chat: readonly ChatMessage[]): string[] {
    const draftId = this.draftOfText.get(send.call.text);
    if (draftId === undefined) return [];
    const why = undoWindowProblem(undoShown(chat, draftId), send.at, this.rules.undoWindowMs);
    return why === null ? [] : [`step ${send.step}: sendMessage of ${JSON.stringify(send.call.text)} (${send.call.outcome}): ${why}`];
  }

  private judge(send: SendSeen): string[] {
    const out: string[] = [];
    const text = send.call.text;
    const key = this.draftOfText.get(text) ?? `text ${JSON.stringify(text)}`;
    const where = `step ${send.step}: sendMessage of ${JSON.stringify(text)} (${send.call.outcome})`;
    if (this.choices.drafts.has(key)) {
      // Among several destinations: judged per destination (choices.ts); a halt holds for each.
      out.push(...this.choices.judge({ step: send.step, key: send.call.chatId, mayHaveGone: mayHaveGone(send) }, key, where));
      if (send.haltedThroughout) out.push(`${where}: sent while a halt was in force`);
      return out;
    }
    if (this.delivered.has(key)) out.push(`${where}: a second send of ${key}, which had already gone out (or may have)`);
    if (mayHaveGone(send)) this.delivered.add(key);
    if (send.haltedThroughout) out.push(`${where}: sent while a halt was in force`);
    if (send.channel !== undefined) return [...out, ...this.judgeChannel(send, send.channel, where)];
    if (send.call.via !== null && send.call.via !== OWNER)
      out.push(`${where}: sent from the account of user ${send.call.via}, not the owner's`);
    if (send.call.chatId === String(PERSON)) {
      // A person's private chat: one reader, whoever Telegram says; what binds is the text and who it goes as.
      const why = this.approvalFor(send, null);
      if (why !== null) out.push(`${where}: no approval that binds to it (${why})`);
      return out;
    }
    if (send.truth === null) {
      out.push(`${where}: sent although Telegram did not answer who reads the destination`);
      return out;
    }
    const why = this.approvalFor(send, send.truth);
    if (why !== null) out.push(`${where}: no approval that binds to it (${why})`);
    return out;
  }

  /**
   * A send on Linear, email or Slack (contract v5): the service must have
   * answered who reads the destination at the call (v3: evidence that cannot
   * be had fails closed), and an approval must bind to the audience it had.
   */
  private judgeChannel(send: SendSeen, call: ChannelCall, where: string): string[] {
    const out: string[] = [];
    if (call.credentialsRefusedAtStart)
      out.push(`${where} on ${call.channel}: sent on a channel halted because its service refused the credentials at the start`);
    if (!call.readable) out.push(`${where} on ${call.channel}: sent although ${call.channel} did not answer who reads the destination`);
    const why = this.approvalFor(send, (s, confirmed) => channelAudienceProblem(s, call, confirmed));
    if (why !== null) out.push(`${where} on ${call.channel}: no approval that binds to it (${why})`);
    return out;
  }

  /** Null when some approval binds to this send; otherwise why each candidate does not. `truth` null: a person's chat. */
  private approvalFor(send: SendSeen, truth: SeenTruth | null | AudienceJudge): string | null {
    const reasons: string[] = [];
    for (const a of this.actions) {
      if (a.kind === "undo" || a.step >= send.step) continue;
      const why = this.whyNot(a, send, truth);
      if (why === null) return null;
      reasons.push(`step ${a.step} ${a.how} on message ${a.surface.messageId}: ${why}`);
    }
    return reasons.length === 0 ? "no approval at all" : reasons.slice(-4).join("; ");
  }

  private whyNot(a: OwnerAction, send: SendSeen, truth: SeenTruth | null | AudienceJudge): string | null {
    const s = a.surface;
    if (!s.accepts[a.kind === "confirm" ? "confirm" : "approve"])
      return `that message takes no ${a.kind === "confirm" ? "confirmation" : "approval"}`;
    if (s.isQuestion && a.channel !== "button") return `a question takes its buttons only, and this was a ${a.channel}`;
    if (s.draftText !== send.call.text) return `it showed ${s.draftText === null ? "no draft text" : JSON.stringify(s.draftText)}`;
    const identity = identityProblem(s, send.call.via);
    if (identity !== null) return identity;
    const confirmed = a.kind === "confirm";
    const audience =
      truth === null
        ? personProblem(s)
        : typeof truth === "function"
          ? truth(s, confirmed)
          : audienceProblem(s, truth, confirmed, this.rules);
    if (audience !== null) return audience;
    const halt = this.haltBegins.find((h) => h > a.step && h <= send.step);
    if (halt !== undefined) return `a halt began at step ${halt}, after it`;
    const undo = this.actions.find(
      (u) =>
        u.kind === "undo" &&
        u.step > a.step &&
        u.step < send.step &&
        u.at < a.at + this.rules.undoWindowMs &&
        u.surface.accepts.undo &&
        // A question takes its buttons only: a reaction or a reply on it undoes nothing.
        !(u.surface.isQuestion && u.channel !== "button") &&
        (u.surface.messageId === s.messageId || (u.surface.decisionControl && u.surface.draftText === s.draftText)),
    );
    if (undo !== undefined) return `undone at step ${undo.step} (${undo.how}) within the window`;
    return null;
  }
}

/** Why what a message showed does not bind a send (`confirmed`: the action was a confirmation tap), or null. */
type AudienceJudge = (s: Surface, confirmed: boolean) => string | null;

/**
 * Whether a send may have reached its readers, so that another send of its
 * draft would be a second message: Telegram's accepted or unknown answer; on
 * a channel, a message that arrived, or an email whose answer was lost (SMTP
 * cannot tell, so it must never be sent again).
 */
function mayHaveGone(send: SendSeen): boolean {
  if (send.channel === undefined) return send.call.outcome === "ok" || send.call.outcome === "unknown";
  return send.channel.arrived || (send.channel.channel === "email" && send.call.outcome === "unknown");
}

/**
 * Why the audience a message showed does not bind a send on a channel, or
 * null: the message must have shown the audience the service had at the call
 * (its tag), and one that asks for the extra tap binds only through the
 * confirmation; an audience shown as unknown binds only through it too.
 */
export function channelAudienceProblem(s: Pick<Surface, "audience">, call: ChannelCall, confirmed: boolean): string | null {
  const a = s.audience;
  if (a === null) return "it showed no audience";
  if (a.kind === "unknown") return confirmed ? null : "it showed the audience as unknown and was no confirmation";
  if (a.kind !== "channel") return `it showed a Telegram audience (${JSON.stringify(a)})`;
  if (a.tag !== call.truth.tag) return `it showed the audience [aud ${a.tag}]; at the send it was [aud ${call.truth.tag}]`;
  if (call.truth.confirm !== null && !confirmed) return `it was no confirmation, and the audience needs one (${call.truth.confirm})`;
  return null;
}

/** The owner's account as a post names it: "Owner, @owner". */
const OWNER_ACCOUNT = `${ACCOUNTS[OWNER]!.first_name}, @${ACCOUNTS[OWNER]!.username}`;

/**
 * Why who the message said the draft goes out as does not bind a send made as
 * `via` (an account's business connection; null: the bot), or null. "As you"
 * binds a send from the owner's account only, and only if the account it
 * named, if any, is his.
 */
export function identityProblem(s: Pick<Surface, "identity" | "account">, via: number | null): string | null {
  if (via === null) return s.identity === "bot" ? null : "it showed the draft going as you, and it went as the bot";
  if (s.identity !== "owner") return `it showed the draft going as the bot, and it went from the account of user ${via}`;
  if (s.account !== null && s.account !== OWNER_ACCOUNT) return `it named the account “${s.account}”`;
  return null;
}

/** Why a message did not show the person a private-chat send reaches, or null. */
export function personProblem(s: Pick<Surface, "audience">): string | null {
  const a = s.audience;
  if (a?.kind === "person" && a.name === ACCOUNTS[PERSON]!.first_name) return null;
  if (a?.kind === "unknown") return null;
  return `it showed ${a === null ? "no audience" : JSON.stringify(a)}, not the person`;
}

/**
 * Why the audience a message showed does not bind a send to `truth`, or null
 * (contract v3: an approval binds to the audience its message showed, member
 * count included; the evidence is read at the send). A known audience must be
 * the same chat (title), not public unless it showed so, and not grown past
 * what the approval covered: over the confirmation threshold without the tap,
 * or beyond `growthCovered` times the count shown (by `growthFloor` at least).
 * Fewer members, or a public chat gone private, is a smaller audience and
 * binds. An unknown audience, or one shown without a count, binds only through
 * a confirmation tap (the owner accepted not knowing); a count shown binds only
 * if the count can be read at the send.
 */
export function audienceProblem(s: Surface, truth: SeenTruth, confirmed: boolean, rules: AudienceRules): string | null {
  const a = s.audience;
  if (a === null) return "it showed no audience";
  if (a.kind === "unknown") return confirmed ? null : "it showed the audience as unknown and was no confirmation";
  if (a.kind === "person") return `it showed a person (${a.name}), not the group`;
  if (a.kind === "channel") return `it showed an audience on another channel ([aud ${a.tag}]), not the group`;
  const isPublic = truth.username !== null;
  const was = `it showed ${a.public ? "public " : ""}“${a.title}” with ${a.members} members; at the send: ${isPublic ? "public " : ""}“${truth.title}” with ${truth.members}`;
  if (a.title !== truth.title) return was;
  if (isPublic && !a.public) return `${was} (it became public)`;
  if (a.members === null) return confirmed ? null : "it showed no member count and was no confirmation";
  if (truth.members === null) return `${was}: the count it showed could not be read at the send`;
  if (truth.members > rules.confirmOver && !confirmed) return `${was}: ${truth.members} members need the confirmation tap`;
  const grown = truth.members - a.members;
  if (truth.members > a.members * rules.growthCovered && grown >= rules.growthFloor) return `${was}: grew past what it showed`;
  return null;
}

/**
 * The live drafts an approval left neither sent, failed, outcome_unknown,
 * halted nor expired once the daemon had ten minutes for them (undo windows,
 * rate-limit waits, retries, lookups after lost answers): still `approved` or
 * `sending`, lost between the approval and an outcome.
 */
export function lostDrafts(drafts: readonly DraftRecord[]): string[] {
  return drafts
    .filter((d) => d.test_mode !== true && (d.status === "approved" || d.status === "sending"))
    .map((d) => `draft ${d.draft_id} (${d.destination?.channel ?? "telegram"}) is still ${d.status} ten minutes after the last step: lost`);
}
