import { Composer, type Api, type Context } from "grammy";
import type { BotCommand } from "grammy/types";
import type { AuditEntry } from "../audit/audit-log.js";
import { formatDuration } from "../config/duration.js";
import type { DraftRecord } from "../drafts/record.js";
import { ownerHalt, ownerResume, type OwnerSwitchDeps } from "../owner/owner-switch.js";
import { pendingText } from "../owner/pending-text.js";
import { killSwitchLine, statusText, type StatusReport } from "../owner/status-report.js";
import { authorizeActor, type ActorFacts } from "../reactions/authorize.js";
import type { KillSwitch } from "../send/kill-switch.js";

/** The owner's commands, as Telegram's command menu shows them in the review chat. */
export const OWNER_COMMANDS: readonly BotCommand[] = [
  { command: "pending", description: "Drafts awaiting your decision, with links" },
  { command: "status", description: "Kill switch, queues and today's counts" },
  { command: "halt", description: "Halt every send until /resume" },
  { command: "resume", description: "Lift your /halt" },
  { command: "help", description: "What the commands and reactions do" },
];

/** What the commands read and change; plain shapes, so a test can pass objects. */
export interface OwnerCommandOptions {
  readonly reviewChatId: string;
  readonly reviewerIds: ReadonlySet<number>;
  /** Posts in the review chat within its rate limit (TelegramReviewChat.say). */
  readonly say: (text: string) => Promise<void>;
  /** The daemon's audit log. */
  readonly audit: { append(entries: readonly AuditEntry[]): Promise<void> };
  /** HARNESS_DIR/HALT. */
  readonly haltPath: string;
  readonly killSwitch: KillSwitch;
  readonly drafts: () => Iterable<DraftRecord>;
  readonly status: () => Promise<StatusReport>;
  readonly now: () => number;
  readonly deferForMs: number;
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
    "/halt is the same as `npx draft-review halt`; TAO_SWARM_ENABLED=0 in .env halts too, and /resume does not lift that.",
  ].join("\n");
}

type Run = (ctx: Context) => Promise<string>;

/**
 * The review chat's owner commands: /pending, /status, /halt, /resume, /help.
 * Only reviewers (by user id, in the review chat) are answered; anyone else's
 * command is ignored and audited with the reason. Answers go through the
 * review chat's rate limit. /halt and /resume run one at a time.
 */
export function ownerCommands(options: OwnerCommandOptions): Composer<Context> {
  const composer = new Composer<Context>();
  const switchDeps: OwnerSwitchDeps = { haltPath: options.haltPath, audit: options.audit, now: options.now };
  let switching: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = switching.then(work, work);
    switching = next.catch(() => undefined);
    return next;
  };
  const actorOf = (ctx: Context) => ({ user_id: ctx.from?.id ?? null, channel: "command" as const, update_id: ctx.update.update_id });

  const runs: Record<string, Run> = {
    pending: async () => pendingText(options.drafts(), options.now()),
    status: async () => statusText(await options.status()),
    help: async () => helpText(options.deferForMs),
    halt: (ctx) => serial(() => haltAnswer(options, switchDeps, actorOf(ctx))),
    resume: (ctx) => serial(() => resumeAnswer(options, switchDeps, actorOf(ctx))),
  };

  composer.command(
    OWNER_COMMANDS.map((c) => c.command),
    async (ctx) => {
      const m = ctx.message;
      if (m === undefined) return;
      const command = /^\/(\w+)/.exec(m.text)?.[1]?.toLowerCase() ?? "";
      const facts: ActorFacts = { chatId: m.chat.id, userId: m.from?.id ?? null, actorChatId: m.sender_chat?.id ?? null, isBot: m.from?.is_bot ?? false };
      const who = authorizeActor(facts, options);
      if (!who.ok) return refuse(options, ctx, command, who.reason);
      const run = runs[command];
      if (run === undefined) return;
      options.log.info({ command, user_id: who.userId }, "owner command");
      await options.say(await run(ctx));
    },
  );
  return composer;
}

/** Audits a command that does not count; nothing is answered. */
async function refuse(options: OwnerCommandOptions, ctx: Context, command: string, reason: string): Promise<void> {
  const m = ctx.message!;
  options.log.warn({ command, reason, user_id: m.from?.id ?? null, chat_id: m.chat.id }, "owner command refused");
  await options.audit.append([
    {
      kind: "command_refused",
      command,
      reason,
      user_id: m.from?.id ?? null,
      channel: "command",
      chat_id: String(m.chat.id),
      update_id: ctx.update.update_id,
      ...(m.sender_chat ? { actor_chat_id: m.sender_chat.id } : {}),
      ...(m.from?.username ? { username: m.from.username } : {}),
    },
  ]);
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

async function resumeAnswer(options: OwnerCommandOptions, deps: OwnerSwitchDeps, actor: Parameters<typeof ownerResume>[1]): Promise<string> {
  let changed: boolean;
  try {
    changed = (await ownerResume(deps, actor)).changed;
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
