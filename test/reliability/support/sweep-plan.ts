/**
 * The crash sweep's workload: about 50 drafts, each with the decisions it
 * will get (over every channel: reactions, buttons, replies with emoji or
 * free text, a stranger's forged ones), a destination (one refuses the bot),
 * or none at all (it expires).
 */
import type { Decision } from "../../../src/drafts/record.js";
import { BLOCKED, FRIENDS, GROUPS, OWNER, STRANGER } from "./sweep-world.js";

/** How a decision is made. */
export type Via = "reaction" | "button" | "reply";

/** One decision the sweep injects, in order, once the previous one is in the audit log. */
export interface Step {
  readonly who: "owner" | "stranger";
  readonly via: Via;
  readonly decision: Decision;
  /** A reply's text when it is not the decision's emoji (a revision note). */
  readonly note?: string;
  /** The reaction comes from another chat than the review chat. */
  readonly otherChat?: boolean;
  /** Made once the draft is final (a second tap): it must be refused, with the reason audited. */
  readonly afterFinal?: boolean;
}

/** A draft the sweep submits and what it should come to. */
export interface DraftPlan {
  readonly n: number;
  readonly text: string;
  readonly key: string;
  readonly dest: number;
  readonly role: "Scribe" | "CoS" | "Margot";
  readonly fate: string;
  readonly steps: readonly Step[];
  /** Submit the same payload again once answered (an idempotent replay). */
  readonly replay: boolean;
}

const owner = (via: Via, decision: Decision, note?: string): Step => ({ who: "owner", via, decision, ...(note ? { note } : {}) });
const late = (via: Via, decision: Decision): Step => ({ who: "owner", via, decision, afterFinal: true });
const stranger = (via: Via, decision: Decision, otherChat = false): Step => ({
  who: "stranger",
  via,
  decision,
  ...(otherChat ? { otherChat } : {}),
});

interface Template {
  fate: string;
  steps: Step[];
  dest?: "blocked";
  replay?: boolean;
  expires?: boolean;
}

/** 25 fates; a 50-draft workload takes each twice. A late step is a second tap once the draft is final. */
const TEMPLATES: Template[] = [
  { fate: "sent", steps: [owner("reaction", "send"), late("button", "send")] },
  { fate: "sent", steps: [owner("button", "send")] },
  { fate: "sent", steps: [owner("reply", "send"), late("reply", "send")] },
  { fate: "revise", steps: [owner("reaction", "revise"), late("button", "send")] },
  { fate: "revise", steps: [owner("button", "revise")] },
  { fate: "revise", steps: [owner("reply", "revise")] },
  { fate: "revise", steps: [owner("reply", "revise", "Warmer please, and mention Friday."), late("reply", "revise")] },
  { fate: "sent", steps: [owner("reply", "defer"), owner("reaction", "send")] },
  { fate: "sent", steps: [owner("reaction", "defer"), owner("button", "send")] },
  { fate: "sent", steps: [owner("button", "defer"), owner("reply", "send")] },
  { fate: "expired", steps: [owner("reaction", "defer"), late("button", "send")], expires: true },
  { fate: "expired", steps: [owner("button", "defer")], expires: true },
  { fate: "sent", steps: [stranger("reaction", "send"), owner("button", "send")] },
  { fate: "revise", steps: [stranger("button", "send"), owner("reaction", "revise")] },
  { fate: "sent", steps: [stranger("reply", "send"), owner("reply", "send")] },
  { fate: "expired", steps: [stranger("reaction", "send"), stranger("button", "send")], expires: true },
  { fate: "failed", steps: [owner("reaction", "send"), late("button", "send")], dest: "blocked" },
  { fate: "failed", steps: [owner("button", "send")], dest: "blocked" },
  { fate: "expired", steps: [late("button", "send")], expires: true },
  { fate: "expired", steps: [], expires: true },
  { fate: "sent", steps: [owner("reaction", "send")] },
  { fate: "sent", steps: [owner("button", "send"), late("button", "defer")] },
  { fate: "sent", steps: [owner("reply", "send")] },
  { fate: "sent", steps: [stranger("reaction", "send", true), owner("reaction", "send"), late("reply", "revise")] },
  { fate: "sent", steps: [owner("button", "send")], replay: true },
];

const WORDS = ["lunch", "Thursday", "the deck", "Anna", "budget", "minutes", "offsite", "review", "draft", "coffee", "agenda", "train"];
const ROLES = ["Scribe", "CoS", "Margot"] as const;

/**
 * `count` drafts in a seeded order. Drafts meant to expire come in the first
 * 70 %, so the final drain does not wait a whole TTL for the last of them.
 */
export function buildPlans(count: number, rand: () => number, runId: string): DraftPlan[] {
  const templates = Array.from({ length: count }, (_, i) => TEMPLATES[i % TEMPLATES.length]!);
  for (let i = templates.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [templates[i], templates[j]] = [templates[j]!, templates[i]!];
  }
  const late = Math.floor(count * 0.7);
  for (let i = late; i < count; i++) {
    if (!templates[i]!.expires) continue;
    const j = templates.findIndex((t, k) => k < late && !t.expires);
    if (j >= 0) [templates[i], templates[j]] = [templates[j]!, templates[i]!];
  }
  const dests = [...FRIENDS, ...GROUPS];
  return templates.map((t, n) => {
    const words = Array.from({ length: 4 }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(", ");
    return {
      n,
      text: `Sweep ${runId} draft ${n}: ${words}. (${t.fate})`,
      key: `sweep-${runId}-${n}`,
      dest: t.dest === "blocked" ? BLOCKED : dests[Math.floor(rand() * dests.length)]!,
      role: ROLES[n % ROLES.length]!,
      fate: t.fate,
      steps: t.steps,
      replay: t.replay ?? false,
    };
  });
}

/** The payload the sweep's agent submits for `plan`. */
export function payloadOf(plan: DraftPlan): Record<string, unknown> {
  return {
    draft_text: plan.text,
    destination_chat_id: String(plan.dest),
    destination_thread_id: null,
    drafted_by_role: plan.role,
    originating_intent_id: `intent-${plan.key}`,
    idempotency_key: plan.key,
  };
}

/** The user and chat a step's update comes from. */
export function actorOf(step: Step): { userId: number; chatId: number } {
  return { userId: step.who === "owner" ? OWNER : STRANGER, chatId: step.otherChat ? STRANGER : OWNER };
}

/** The reaction emoji for a decision (Telegram has no ❌ or ⏳ reaction). */
export const REACTION: Record<Decision, string> = { send: "👍", revise: "👎", defer: "😴" };
/** The reply text for a decision. */
export const REPLY: Record<Decision, string> = { send: "👍", revise: "❌", defer: "⏳" };
