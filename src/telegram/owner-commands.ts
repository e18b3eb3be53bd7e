import { Composer, type Api, type CallbackQueryContext, type CommandContext, type Context } from "grammy";
import type { BotCommand, InlineKeyboardMarkup, MessageEntity } from "grammy/types";
import type { AuditEntry } from "../audit/audit-log.js";
import { formatDuration } from "../config/duration.js";
import type { DraftRecord, Role } from "../drafts/record.js";
import { KeyedQueue } from "../serial/keyed-queue.js";
import { ownerHalt, ownerResume, type OwnerSwitchDeps } from "../owner/owner-switch.js";
import { pendingPage } from "../owner/pending-text.js";
import { pendingTaps } from "./pending-taps.js";
import { topicOf } from "./review-topics.js";
import { killSwitchLine, statusMessage, type StatusReport } from "../owner/status-report.js";
import { authorizeActor, type ActorFacts } from "../reactions/authorize.js";
import { ownerHaltPresent, type KillSwitch } from "../send/kill-switch.js";
import { CONFIRM_TTL_MS, haltIdentity, RESUME_ASKED, RESUME_PATTERN, RESUME_QUESTION, resumeButton } from "./resume-confirmations.js";
import { shownOfHalt, type DecisionSurfaces } from "../desk/surfaces.js";

/** The owner's commands, as Telegram's command menu shows them in the review chat. */
export const OWNER_COMMANDS: readonly BotCommand[] = [
  { command: "pending", description: "Drafts awaiting your decision, with links" },
  { command: "status", description: "Kill switch, queues and today's counts" },
  { command: "report", description: "The last 7 days per role, as a picture" },
  { command: "halt", description: "Halt every send until /resume" },
  { command: "resume", description: "Lift your /halt" },
  { command: "help", description: "What the commands and reactions do" },
];

/** What the commands read and change; plain shapes, so a test can pass objects. */
export interface OwnerCommandOptions {
  readonly reviewChatId: string;
  readonly reviewerIds: ReadonlySet<number>;
  /**
   * Posts in the review chat within its rate limit (TelegramReviewChat.say), with buttons when given, in `thread`
   * (absent: the main thread), with `entities` (its times); resolves with the message id.
   */
  readonly say: (text: string, buttons?: InlineKeyboardMarkup, thread?: number | null, entities?: MessageEntity[]) => Promise<unknown>;
  /** The role whose topic a thread is (REVIEW_TOPICS=role): /pending there lists its drafts. Absent: no topics. */
  readonly topicRole?: (threadId: number) => Role | null;
  /** Answers in the review chat as a reply to a message (a /pending number: a reply to that draft's post). */
  readonly answer?: (text: string, replyTo: number, thread: number | null) => Promise<unknown>;
  /** The decision surfaces (the desk's): a /resume confirmation is one. */
  readonly surfaces: Pick<DecisionSurfaces, "record" | "at" | "gate">;
  /** The daemon's audit log. */
  readonly audit: { append(entries: readonly AuditEntry[]): Promise<void> };
  /** HARNESS_DIR/HALT. */
  readonly haltPath: string;
  readonly killSwitch: KillSwitch;
  readonly drafts: () => Iterable<DraftRecord>;
  readonly status: () => Promise<StatusReport>;
  readonly now: () => number;
  readonly deferForMs: number;
  /** Posts the last seven days' report picture (/report); resolves with an answer in words when it drew none. Absent: /report is not offered. */
  readonly report?: (userId: number) => Promise<string | null>;
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The /help answer. */
export function helpText(deferForMs: number): string {
  return [
    "Commands (reviewers only):",
    ...OWNER_COMMANDS.map((c) => `/${c.command} — ${c.description}`),
    "",
    `On a review message: 👍 send · 👎 revise · 😴 defer ${formatDuration(deferForMs)}.`,
    "The buttons under it do the same; a reply with ❌ or any text asks for a revision (the text is the note), ⏳ defers.",
    "A reply that is only ok, yes, send or ✅ is no note: you are asked with buttons whether to send or to revise.",
    "✏️ Edit (the button, or a reply starting with ✏️ and the new text) changes the draft's text before you decide.",
    "↩️ Undo (the button, a reply `undo`, or taking your 👍 or 👎 away) takes a send or a revise back within the undo window.",
    "/halt is the same as `npx draft-review halt`; TAO_SWARM_ENABLED=0 in .env halts too, and /resume does not lift that.",
  ].join("\n");
}

/**
 * A command's answer: text, and buttons when the command asks for a confirmation tap (then `sent` records the
 * message); null when it answered itself (/report's picture).
 */
type Answer =
  | string
  | {
      readonly text: string;
      readonly buttons?: InlineKeyboardMarkup;
      readonly sent?: (messageId: number) => Promise<void>;
      /** The topic to answer in (/pending typed in one); absent: the main thread. */
      readonly thread?: number | null;
      /** Its times (date_time entities), if any. */
      readonly entities?: MessageEntity[];
    }
  | null;
type Run = (ctx: Context) => Promise<Answer>;

/** The owner's command handlers: the commands, and the taps (/resume confirmations, /pending's buttons), which must run before the decision handlers see the callback. */
export interface OwnerCommandHandlers {
  readonly commands: Composer<Context>;
  readonly confirmations: Composer<Context>;
}

/**
 * The review chat's owner commands: /pending, /status, /halt, /resume, /help.
 * Only reviewers (by user id, in the review chat) are answered; anyone else's
 * command is ignored and audited with the reason. Answers go through the
 * review chat's rate limit. /halt and /resume run one at a time. /resume
 * weakens a safety, and Telegram makes "/resume" in any text (a draft's too)
 * one tap away: it only asks, and a reviewer's tap on its button lifts the halt.
 */
export function ownerCommands(options: OwnerCommandOptions): OwnerCommandHandlers {
  const switchDeps: OwnerSwitchDeps = { haltPath: options.haltPath, audit: options.audit, now: options.now };
  // /halt and /resume change one switch: one at a time, in arrival order.
  const switching = new KeyedQueue();
  const serial: Serial = (work) => switching.run("switch", work);
  const runs = commandRuns(options, switchDeps, serial);
  const composer = new Composer<Context>();
  composer.command(
    OWNER_COMMANDS.map((c) => c.command),
    (ctx) => runCommand(options, runs, ctx),
  );
  const taps = new Composer<Context>();
  const pending = pendingTaps({ ...options, answer: options.answer ?? (async () => {}) });
  taps.callbackQuery(pending.pattern, pending.handle);
  taps.callbackQuery(RESUME_PATTERN, (ctx) => resumeTap(options, switchDeps, serial, ctx));
  return { commands: composer, confirmations: taps };
}

/** Runs `work` in the switch's queue: /halt and /resume one at a time, in arrival order. */
type Serial = <T>(work: () => Promise<T>) => Promise<T>;

/** What each owner command answers, by its name. */
function commandRuns(options: OwnerCommandOptions, switchDeps: OwnerSwitchDeps, serial: Serial): Record<string, Run> {
  const actorOf = (ctx: Context) => ({ user_id: ctx.from?.id ?? null, channel: "command" as const, update_id: ctx.update.update_id });
  return {
    pending: async (ctx) => {
      // Typed in a topic: answered there; in a role's topic it lists that role's drafts.
      const thread = topicOf(ctx.message);
      const role = thread === null ? undefined : (options.topicRole?.(thread) ?? undefined);
      const page = pendingPage(options.drafts(), options.now(), 0, undefined, role);
      return { text: page.text, buttons: page.buttons, sent: async () => {}, thread, entities: page.entities };
    },
    status: async () => statusMessage(await options.status()),
    help: async () => helpText(options.deferForMs),
    report: (ctx) => reportAnswer(options, ctx.from?.id ?? 0),
    halt: (ctx) => serial(() => haltAnswer(options, switchDeps, actorOf(ctx))),
    resume: async () => {
      // Nothing to lift: nothing to confirm. Otherwise only a reviewer's tap on the button resumes.
      if (!(await ownerHaltPresent(options.haltPath)).present) return serial(() => resumeAnswer(options, switchDeps, null));
      // The question binds to this halt: a tap once another halt began counts for nothing.
      const shown = shownOfHalt(await haltIdentity(options.haltPath));
      const { token, markup } = resumeButton();
      const until = options.now() + CONFIRM_TTL_MS;
      const where = (messageId: number) => ({ chatId: options.reviewChatId, messageId });
      return { text: RESUME_QUESTION, buttons: markup, sent: (m) => options.surfaces.record("resume", where(m), shown, { token, until }) };
    },
  };
}

/** One owner command: a reviewer's is run and answered; anyone else's is refused and audited. */
async function runCommand(options: OwnerCommandOptions, runs: Record<string, Run>, ctx: CommandContext<Context>): Promise<void> {
  const m = ctx.message;
  if (m === undefined) return;
  const command = /^\/(\w+)/.exec(m.text)?.[1]?.toLowerCase() ?? "";
  const facts: ActorFacts = {
    chatId: m.chat.id,
    userId: m.from?.id ?? null,
    actorChatId: m.sender_chat?.id ?? null,
    isBot: m.from?.is_bot ?? false,
  };
  const who = authorizeActor(facts, options);
  if (!who.ok) return refuse(options, ctx, command, who.reason);
  const run = runs[command];
  if (run === undefined) return;
  options.log.info({ command, user_id: who.userId }, "owner command");
  const answer = await run(ctx);
  if (answer === null) return;
  if (typeof answer === "string") return void (await options.say(answer));
  const messageId = await options.say(answer.text, answer.buttons, answer.thread, answer.entities);
  if (typeof messageId === "number") await answer.sent?.(messageId);
}

/** A tap on a /resume question: a reviewer's on the question of the halt in force lifts it; anything else is refused. */
async function resumeTap(
  options: OwnerCommandOptions,
  switchDeps: OwnerSwitchDeps,
  serial: Serial,
  ctx: CallbackQueryContext<Context>,
): Promise<unknown> {
  const q = ctx.callbackQuery;
  const tell = (text: string) =>
    ctx.answerCallbackQuery({ text }).catch((err: unknown) => options.log.warn({ err }, "answerCallbackQuery failed"));
  const facts: ActorFacts = { chatId: q.message?.chat.id ?? 0, userId: q.from.id, actorChatId: null, isBot: q.from.is_bot };
  const who = authorizeActor(facts, options);
  if (!who.ok) {
    await refuseTap(options, ctx, who.reason);
    return tell("Only a reviewer can resume sends. Nothing changed.");
  }
  // The message tapped (its surface), not the data, says which halt this lifts; the token must be its own.
  // Judged and applied in the switch's queue, so no /halt comes between the judgement and the resume.
  const surface = q.message ? options.surfaces.at(String(q.message.chat.id), q.message.message_id) : undefined;
  const outcome = await serial(async () => {
    const now = shownOfHalt(await haltIdentity(options.haltPath));
    const verdict = surface
      ? await options.surfaces.gate(surface, now, { does: "resume", via: "tap" }, { token: ctx.match[1] ?? "" }, options.now())
      : ({ ok: false, reason: "unknown_confirmation" } as const);
    if (!verdict.ok) return verdict;
    options.log.info({ command: "resume", user_id: who.userId }, "owner confirmed /resume");
    const actor = { user_id: who.userId, channel: "command", update_id: ctx.update.update_id } as const;
    return { ok: true, text: await resumeAnswer(options, switchDeps, actor) } as const;
  });
  // The question says in its own text what became of it, and loses its button.
  const closeWith = (line: string) =>
    ctx.editMessageText(`${RESUME_ASKED}\n\n${line}`, { reply_markup: { inline_keyboard: [] } }).catch(() => {});
  if (!outcome.ok) {
    await refuseTap(options, ctx, outcome.reason);
    // A second tap on one answered already leaves the answer it shows; a message that is no /resume
    // question (a draft's post, whatever the data says) is never rewritten.
    if (outcome.reason !== "surface_used" && surface?.asks === "resume") {
      await closeWith("No longer applies: nothing changed. Send /resume again to be asked anew.");
    }
    return tell("This confirmation is no longer valid: nothing changed. Send /resume again.");
  }
  const { text } = outcome;
  await closeWith("▶️ You chose: resume sends.");
  await tell(text.startsWith("Your halt is lifted") ? "Resumed." : "Done; see the answer in the chat.");
  await options.say(text);
}

/** Audits a tap on a /resume confirmation that does not count. */
async function refuseTap(options: OwnerCommandOptions, ctx: Context, reason: string): Promise<void> {
  const q = ctx.callbackQuery!;
  await auditRefusal(options, {
    command: "resume",
    reason,
    user_id: q.from.id,
    chat_id: q.message?.chat.id ?? 0,
    update_id: ctx.update.update_id,
    channel: "button",
    username: q.from.username,
  });
}

/** Audits a command that does not count; nothing is answered. */
async function refuse(options: OwnerCommandOptions, ctx: Context, command: string, reason: string): Promise<void> {
  const m = ctx.message!;
  await auditRefusal(options, {
    command,
    reason,
    user_id: m.from?.id ?? null,
    chat_id: m.chat.id,
    update_id: ctx.update.update_id,
    channel: "command",
    actor_chat_id: m.sender_chat?.id,
    username: m.from?.username,
  });
}

/** One `command_refused` audit line (a typed command, or a tap on a confirmation button). */
async function auditRefusal(
  options: OwnerCommandOptions,
  r: {
    command: string;
    reason: string;
    user_id: number | null;
    chat_id: number;
    update_id: number;
    channel: "command" | "button";
    actor_chat_id?: number | undefined;
    username?: string | undefined;
  },
): Promise<void> {
  options.log.warn(
    { command: r.command, reason: r.reason, user_id: r.user_id, chat_id: r.chat_id, channel: r.channel },
    "owner command refused",
  );
  await options.audit.append([
    {
      kind: "command_refused",
      command: r.command,
      reason: r.reason,
      user_id: r.user_id,
      channel: r.channel,
      chat_id: String(r.chat_id),
      update_id: r.update_id,
      ...(r.actor_chat_id !== undefined ? { actor_chat_id: r.actor_chat_id } : {}),
      ...(r.username ? { username: r.username } : {}),
    },
  ]);
}

/** Posts the report picture; a failure is answered in words (nothing else changes). */
async function reportAnswer(options: OwnerCommandOptions, userId: number): Promise<Answer> {
  if (options.report === undefined) return "The report is not available here.";
  try {
    return await options.report(userId);
  } catch (err) {
    options.log.error({ err }, "/report failed");
    return `Could not make the report: ${(err as Error).message}. \`npx draft-review report\` on the daemon's machine shows the same numbers.`;
  }
}

async function haltAnswer(options: OwnerCommandOptions, deps: OwnerSwitchDeps, actor: Parameters<typeof ownerHalt>[1]): Promise<string> {
  try {
    const result = await ownerHalt(deps, actor);
    return result.changed
      ? "⛔ Sends halted. Nothing goes out until /resume. A draft approved meanwhile becomes halted and needs a new 👍 after /resume."
      : "⛔ Sends were already halted by the owner. /resume lifts it.";
  } catch (err) {
    options.log.error({ err }, "/halt failed");
    return `Could not halt: ${(err as Error).message}. Halt another way now: \`npx draft-review halt\` on the daemon's machine, or TAO_SWARM_ENABLED=0 in .env.`;
  }
}

/** Lifts the owner's halt (`actor` null: nothing to lift, only say so) and says what the switch is now. */
async function resumeAnswer(
  options: OwnerCommandOptions,
  deps: OwnerSwitchDeps,
  actor: Parameters<typeof ownerResume>[1] | null,
): Promise<string> {
  let changed = false;
  try {
    if (actor !== null) changed = (await ownerResume(deps, actor)).changed;
  } catch (err) {
    options.log.error({ err }, "/resume failed");
    return `Could not resume: ${(err as Error).message}. Sends stay halted.`;
  }
  const state = await options.killSwitch.check();
  const head = changed ? "Your halt is lifted." : "There was no owner halt to lift.";
  if (state.halted) return `${head} Sends are still halted: ${state.reason}.`;
  return `${head} ${killSwitchLine(state)}. Drafts halted meanwhile need a new 👍: /pending lists them.`;
}

/**
 * Shows the owner's commands in Telegram's menu, for the review chat only.
 * A failure is logged, not fatal: the commands work when typed.
 */
export async function registerOwnerCommands(api: Api, reviewChatId: string, log: { warn(obj: object, msg: string): void }): Promise<void> {
  try {
    await api.setMyCommands([...OWNER_COMMANDS], { scope: { type: "chat", chat_id: reviewChatId } });
  } catch (err) {
    log.warn({ err }, "could not register the owner commands with Telegram (setMyCommands); they still work when typed");
  }
}
