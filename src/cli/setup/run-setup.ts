import { join } from "node:path";
import { Api } from "grammy";
import type { Message, UserFromGetMe } from "grammy/types";
import { apiTarget } from "../api-target.js";
import { CliFailure, EXIT, type CliIo } from "../io.js";
import { printJsonLine } from "../output.js";
import { BOT_TOKEN_SHAPE } from "../../config/config.js";
import { formatDuration } from "../../config/duration.js";
import { ALLOWED_UPDATES } from "../../telegram/journaled-updates.js";
import { businessHelp } from "./business-help.js";
import { topicsHelp } from "./topics-help.js";
import { checkReviewChat, type ChatCheck } from "./check-chat.js";
import { daemonAnswers } from "./daemon-probe.js";
import { tightenSecretEnvFile } from "../../config/env-secrets.js";
import { readEnvFile, setEnvValues, writeEnvFile } from "./env-file.js";
import { waitForReaction } from "./find-reaction.js";
import { ANONYMOUS_ADMIN_ID, confirmUpTo, waitForStart } from "./find-start.js";
import { explainTelegramError } from "./telegram-problems.js";
import { isYes, planEnvWrite, proposedReviewers } from "./write-plan.js";
import { Answers } from "./answers.js";
import { piiAllowStep, type PiiStepOutcome } from "./pii-step.js";
import { channelsStep, type ChannelStepOutcome } from "./channel-step.js";

/** The flags of `draft-review setup`. */
export interface SetupOptions {
  readonly yes: boolean;
  readonly noWrite: boolean;
  readonly json: boolean;
  readonly timeoutSeconds: number;
  /** How long to wait for the owner's 👍 on the hello (`--reaction-wait`); 0 skips the check. */
  readonly reactionWaitSeconds: number;
  /** `--pii-allow`: the owner's own phone numbers and email addresses, instead of asking (null: ask on a terminal). */
  readonly piiAllow?: string | null;
}

/** setup's exit code when the ids were found but the review chat needs fixing. */
export const EXIT_CHAT_NEEDS_FIXING = 3;

interface Session {
  readonly io: CliIo;
  readonly options: SetupOptions;
  readonly api: Api;
  readonly apiRoot: string;
  readonly token: string;
  /** Progress for a person: stdout, or stderr when stdout carries the --json answer. */
  say(text: string): void;
  /** A question, without a newline, where `say` writes. */
  prompt(text: string): void;
  /** The lines typed on stdin, one per question. */
  readonly answers: Answers;
}

/**
 * `draft-review setup`: from TELEGRAM_BOT_TOKEN alone to a working review
 * chat. Checks the token, waits for the owner's /start, prints (and offers to
 * write to .env) REVIEW_CHAT_ID and REVIEWER_USER_IDS, then checks that the
 * bot can post there and, in a group, is an admin. Refuses to run while the
 * daemon polls the same bot.
 */
export async function runSetup(io: CliIo, options: SetupOptions): Promise<number> {
  const s = await openSession(io, options);
  try {
    await tightenEnvFile(s);
    const me = await checkToken(s);
    await removeWebhook(s);
    const start = await awaitStart(s, me);
    const values = await proposeValues(s, start);
    const env = await maybeWrite(s, values);
    const pii = await ownDetails(s);
    const channels = await otherChannels(s);
    const check = await checkChat(s, me, start, values);
    const reaction = await checkReaction(s, start, check);
    return finish(s, me, start, values, env, check, reaction, { pii, channels });
  } catch (err) {
    if (err instanceof CliFailure) throw new CliFailure(scrub(err.message, s.token), err.exitCode);
    throw err;
  } finally {
    s.answers.close();
  }
}

/** The owner's own phone numbers and email addresses, for PII_ALLOW (see pii-step.ts); a bad --pii-allow value exits 1. */
async function ownDetails(s: Session): Promise<PiiStepOutcome> {
  const outcome = await piiAllowStep({
    say: s.say,
    ask: (question) => ask(s, question),
    interactive: s.io.stdin.isTTY === true,
    yes: s.options.yes,
    noWrite: s.options.noWrite,
    given: s.options.piiAllow ?? null,
    envValue: s.io.env.PII_ALLOW,
    envPath: envPath(s.io),
  });
  if ("refused" in outcome) throw new CliFailure(outcome.refused);
  return outcome;
}

/** Linear, email and Slack: each proven as the daemon proves it at start, asked for on a terminal (see channel-step.ts). */
function otherChannels(s: Session): Promise<ChannelStepOutcome[]> {
  return channelsStep({
    say: s.say,
    ask: (question) => ask(s, question),
    askHidden: (question) => {
      s.prompt(question);
      return s.answers.nextHidden(() => s.prompt("\n"));
    },
    interactive: s.io.stdin.isTTY === true,
    yes: s.options.yes,
    noWrite: s.options.noWrite,
    env: s.io.env,
    envPath: envPath(s.io),
  });
}

async function openSession(io: CliIo, options: SetupOptions): Promise<Session> {
  const token = io.env.TELEGRAM_BOT_TOKEN?.trim() ?? "";
  if (token === "") {
    throw new CliFailure(
      "TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather (/newbot), put TELEGRAM_BOT_TOKEN=<token> in .env (copy .env.example), then run setup again.",
    );
  }
  if (!BOT_TOKEN_SHAPE.test(token)) {
    throw new CliFailure(
      "TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, then 20+ letters, digits, _ or -): copy it again from @BotFather.",
    );
  }
  const apiRoot = (io.env.TELEGRAM_API_ROOT?.trim() || "https://api.telegram.org").replace(/\/+$/, "");
  const target = apiTarget(io.env);
  if (await daemonAnswers(target.host, target.port)) {
    throw new CliFailure(
      `the draft-review daemon is running (its API answers at ${target.url}) and polls this bot, and Telegram lets only one program poll: stop it (Ctrl-C, \`systemctl --user stop draft-review\` or \`launchctl unload\`), run setup, then start it again.`,
    );
  }
  const out = options.json ? io.stderr : io.stdout;
  const api = new Api(token, { apiRoot, timeoutSeconds: 60 });
  return {
    io,
    options,
    api,
    apiRoot,
    token,
    say: (text) => void out.write(`${text}\n`),
    prompt: (text) => void out.write(text),
    answers: new Answers(io.stdin),
  };
}

/** grammY's messages never carry the token, but a network error's might (a URL): scrub it anyway. */
function scrub(text: string, token: string): string {
  return token === "" ? text : text.split(token).join("[redacted]");
}

function telegramFailure(s: Session, err: unknown, bot?: string): CliFailure {
  return new CliFailure(explainTelegramError(err, { apiRoot: s.apiRoot, ...(bot ? { bot } : {}) }));
}

async function checkToken(s: Session): Promise<UserFromGetMe> {
  try {
    const me = await s.api.getMe();
    s.say(`✓ Token accepted: @${me.username} (${me.first_name}), bot id ${me.id}.`);
    return me;
  } catch (err) {
    throw telegramFailure(s, err);
  }
}

async function removeWebhook(s: Session): Promise<void> {
  try {
    const hook = await s.api.getWebhookInfo();
    if (!hook.url) return;
    s.say("This bot had a webhook, which blocks long polling; removing it, as the daemon does at start (pending updates are kept).");
    await s.api.deleteWebhook({ drop_pending_updates: false });
  } catch (err) {
    throw telegramFailure(s, err);
  }
}

async function awaitStart(s: Session, me: UserFromGetMe): Promise<Message> {
  const bot = `@${me.username}`;
  const wait = formatDuration(s.options.timeoutSeconds * 1000);
  s.say(
    [
      `Waiting up to ${wait} for /start. In Telegram, open ${bot} (https://t.me/${me.username}) from the account that will review drafts and send /start.`,
      `  For a group review chat: add ${bot} to the group, make it an admin, and send /start@${me.username} there.`,
      "  (Ctrl-C stops.)",
    ].join("\n"),
  );
  let found;
  try {
    found = await waitForStart(s.api, me.username, { deadlineMs: Date.now() + s.options.timeoutSeconds * 1000, now: Date.now });
    await confirmUpTo(s.api, found?.updateId ?? null, ALLOWED_UPDATES);
  } catch (err) {
    throw telegramFailure(s, err, bot);
  }
  if (!found) {
    throw new CliFailure(
      `no /start reached ${bot} within ${wait}: send /start to the bot from the review chat (in a group: /start@${me.username}), then run setup again (--timeout SECONDS waits longer).`,
    );
  }
  const m = found.message;
  if (m.sender_chat !== undefined || m.from === undefined || m.from.id === ANONYMOUS_ADMIN_ID) {
    throw new CliFailure(
      "that /start was sent anonymously (as the group), so your user id is hidden: turn off “Remain anonymous” for yourself (group → Administrators), send /start again, then run setup again.",
    );
  }
  s.say(`✓ /start from ${describeUser(m)}, in ${describeChat(m)}.`);
  return m;
}

function describeUser(m: Message): string {
  const from = m.from!;
  return `${from.first_name}${from.username ? ` (@${from.username})` : ""}, user id ${from.id}`;
}

function describeChat(m: Message): string {
  const c = m.chat;
  const topic = m.is_topic_message && m.message_thread_id !== undefined ? `, topic ${m.message_thread_id}` : "";
  if (c.type === "private") return `your private chat with the bot (chat id ${c.id})`;
  return `the ${c.type} “${c.title}” (chat id ${c.id}${topic})`;
}

async function proposeValues(s: Session, m: Message): Promise<Record<string, string>> {
  const file = await readEnvFile(envPath(s.io));
  const values: Record<string, string> = {
    REVIEW_CHAT_ID: String(m.chat.id),
    REVIEWER_USER_IDS: proposedReviewers(file.values.REVIEWER_USER_IDS, m.from!.id),
  };
  if (m.is_topic_message && m.message_thread_id !== undefined) values.REVIEW_THREAD_ID = String(m.message_thread_id);
  s.say(["", "Configuration for .env:", ...Object.entries(values).map(([k, v]) => `  ${k}=${v}`), ""].join("\n"));
  return values;
}

/** `.env` holds the bot token: found readable by others, it is tightened to 0600, and setup says so. */
async function tightenEnvFile(s: Session): Promise<void> {
  const path = envPath(s.io);
  try {
    const old = await tightenSecretEnvFile(path);
    if (old !== null)
      s.say(
        `✓ ${path} holds the bot token and other users could read it (mode 0${old.toString(8)}): tightened it to 0${(old & 0o600).toString(8)}.`,
      );
  } catch (err) {
    s.say(
      `✗ ${path} holds the bot token and other users can read it, and it could not be tightened (${(err as Error).message}): run \`chmod 600 ${path}\`.`,
    );
  }
}

function envPath(io: CliIo): string {
  return join(io.cwd, ".env");
}

/** What became of .env. */
type EnvOutcome = "written" | "unchanged" | "not_written";

async function maybeWrite(s: Session, values: Record<string, string>): Promise<EnvOutcome> {
  const path = envPath(s.io);
  const file = await readEnvFile(path);
  const plan = planEnvWrite({
    existing: file.values,
    proposed: values,
    yes: s.options.yes,
    noWrite: s.options.noWrite,
    interactive: s.io.stdin.isTTY === true,
    envPath: path,
  });
  if (plan.kind === "unchanged") {
    s.say(`✓ ${path} already has these values.`);
    return "unchanged";
  }
  if (plan.kind === "skip") {
    s.say(plan.reason);
    return "not_written";
  }
  if (plan.kind === "ask" && !isYes(await ask(s, plan.question), plan.defaultYes)) {
    s.say(".env left as it is; add the lines above yourself.");
    return "not_written";
  }
  await writeEnvFile(path, setEnvValues(file.text, values));
  s.say(`✓ Wrote ${Object.keys(values).join(" and ")} to ${path}.`);
  for (const [name, value] of Object.entries(values)) {
    const seen = s.io.env[name]?.trim();
    if (seen && seen !== file.values[name] && seen !== value) {
      s.say(`  Note: ${name}=${seen} is also set in the environment, which wins over .env: unset it there.`);
    }
  }
  return "written";
}

/** Asks one question on the terminal and resolves with the line typed (empty at end of input). */
function ask(s: Session, question: string): Promise<string> {
  s.prompt(question);
  return s.answers.next();
}

async function checkChat(s: Session, me: UserFromGetMe, m: Message, values: Record<string, string>): Promise<ChatCheck> {
  const sameChat = s.io.env.REVIEW_CHAT_ID?.trim() === values.REVIEW_CHAT_ID;
  const threadText = values.REVIEW_THREAD_ID ?? (sameChat ? s.io.env.REVIEW_THREAD_ID?.trim() : undefined);
  const threadId = threadText ? Number(threadText) : null;
  const check = await checkReviewChat(s.api, m.chat, me.id, threadId, { apiRoot: s.apiRoot, bot: `@${me.username}` });
  if (check.canPost) s.say("✓ The bot can post in the review chat (it sent a hello there).");
  if (check.botIsAdmin === true) s.say("✓ The bot is an admin in the group, so reactions will reach it.");
  s.say(topicsHelp(me, m.chat, threadId));
  return check;
}

/** Whether a reaction reached the bot: true, false (none within the wait), or null (not checked). */
type ReactionCheck = boolean | null;

/**
 * Asks the owner to react 👍 on the hello and says whether the reaction
 * reached the bot within `--reaction-wait`. Telegram may not deliver
 * reactions to a bot (reliably only to an admin in a group; from a private
 * chat with a bot they often never arrive), so the owner learns it now, not
 * when a 👍 on a draft seems to do nothing.
 */
async function checkReaction(s: Session, m: Message, check: ChatCheck): Promise<ReactionCheck> {
  const waitSeconds = s.options.reactionWaitSeconds;
  if (waitSeconds === 0 || check.helloMessageId === null) return null;
  s.say(
    `Now react 👍 on that hello in the review chat (long-press it → 👍); waiting up to ${formatDuration(waitSeconds * 1000)} to see whether Telegram delivers reactions to the bot there.`,
  );
  let found;
  try {
    found = await waitForReaction(s.api, { chatId: m.chat.id, messageId: check.helloMessageId }, ALLOWED_UPDATES, {
      deadlineMs: Date.now() + waitSeconds * 1000,
      now: Date.now,
    });
    await confirmUpTo(s.api, found?.updateId ?? null, ALLOWED_UPDATES);
  } catch (err) {
    throw telegramFailure(s, err);
  }
  if (found) {
    s.say(`✓ Your ${found.emoji} reached the bot: reactions work in this chat.`);
    return true;
  }
  s.say(
    `⚠️ No reaction reached the bot within ${formatDuration(waitSeconds * 1000)}. Telegram delivers reactions to bots reliably only where the bot is an admin, and often not at all from a private chat with a bot. ` +
      "Decide with the buttons under each draft (👍 Send, ❌ Revise, ⏳ defer) or by replying, or use a private group where the bot is admin as the review chat (run setup again there).",
  );
  return false;
}

function finish(
  s: Session,
  me: UserFromGetMe,
  m: Message,
  values: Record<string, string>,
  env: EnvOutcome,
  check: ChatCheck,
  reaction: ReactionCheck,
  steps: { readonly pii: PiiStepOutcome; readonly channels: readonly ChannelStepOutcome[] },
): number {
  for (const problem of check.problems) s.say(`✗ ${problem}`);
  const ok = check.problems.length === 0;
  if (ok)
    s.say(
      env === "not_written"
        ? "Done. Add the lines above to .env, then start the daemon with `npm start`."
        : "Done. Start the daemon with `npm start`.",
    );
  if (ok) s.say(businessHelp(me));
  if (s.options.json) {
    printJsonLine(s.io, {
      ok,
      bot: { id: me.id, username: me.username },
      chat: { id: m.chat.id, type: m.chat.type },
      user: { id: m.from!.id, username: m.from!.username ?? null },
      env: values,
      written: env === "written",
      checks: { can_post: check.canPost, bot_is_admin: check.botIsAdmin, reaction_arrived: reaction },
      business_mode: (me as { can_connect_to_business?: boolean }).can_connect_to_business === true,
      topics_enabled: me.has_topics_enabled === true,
      pii_allow: { added: steps.pii.added, written: steps.pii.written },
      channels: steps.channels,
      problems: check.problems,
    });
  }
  return ok ? EXIT.ok : EXIT_CHAT_NEEDS_FIXING;
}
