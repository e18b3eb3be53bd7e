import { run } from "@grammyjs/runner";
import { Api, Bot, GrammyError, HttpError } from "grammy";
import type { Update } from "grammy/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramDouble, type TelegramDouble } from "./index.js";

const REVIEWER = 111;
const GROUP = -1001234567890;
const ALL = ["message", "callback_query", "message_reaction"] as const;

let double: TelegramDouble;
let api: Api;

beforeEach(async () => {
  double = await startTelegramDouble({
    chats: [
      { id: REVIEWER, type: "private" },
      { id: GROUP, type: "supergroup", title: "Review" },
    ],
  });
  api = new Api(double.token, { apiRoot: double.url });
});
afterEach(() => double.stop());

const ids = (updates: Update[]): number[] => updates.map((u) => u.update_id);

describe("getUpdates", () => {
  it("keeps updates until an offset confirms them, then drops them for good", async () => {
    const a = double.injectMessage({ chatId: REVIEWER, userId: REVIEWER, text: "one" }).update;
    const b = double.injectMessage({ chatId: REVIEWER, userId: REVIEWER, text: "two" }).update;
    expect(a.update_id).toBe(700_000_001);
    expect(ids(await api.getUpdates())).toEqual([a.update_id, b.update_id]);
    expect(ids(await api.getUpdates({ limit: 1 }))).toEqual([a.update_id]);
    expect(ids(await api.getUpdates({ offset: b.update_id }))).toEqual([b.update_id]);
    expect(ids(await api.getUpdates({ offset: a.update_id }))).toEqual([b.update_id]);
    expect(ids(await api.getUpdates({ offset: b.update_id + 1 }))).toEqual([]);
    expect(double.pendingUpdates()).toEqual([]);
  });

  it("holds a long poll until an update arrives, or the timeout passes", async () => {
    const started = Date.now();
    const poll = api.getUpdates({ timeout: 5 });
    setTimeout(() => double.injectMessage({ chatId: REVIEWER, userId: REVIEWER, text: "hi" }), 50);
    const updates = await poll;
    expect(updates[0]?.message?.text).toBe("hi");
    expect(Date.now() - started).toBeLessThan(1000);
    const empty = Date.now();
    expect(await api.getUpdates({ offset: updates[0]!.update_id + 1, timeout: 1 })).toEqual([]);
    expect(Date.now() - empty).toBeGreaterThanOrEqual(950);
  });

  it("leaves out reactions by default, even once asked for later; delivers them once allowed", async () => {
    const sent = await api.sendMessage(REVIEWER, "draft");
    const early = double.injectReaction({ chatId: REVIEWER, messageId: sent.message_id, userId: REVIEWER, newEmojis: ["👍"] });
    expect(early.queued).toBe(false);
    expect(await api.getUpdates({ allowed_updates: ALL })).toEqual([]);
    expect(double.allowedUpdates).toEqual(ALL);
    const late = double.injectReaction({
      chatId: REVIEWER,
      messageId: sent.message_id,
      userId: REVIEWER,
      oldEmojis: ["👍"],
      newEmojis: ["👎"],
    });
    const [update] = await api.getUpdates();
    expect(update).toEqual(late.update);
    expect(update?.message_reaction).toEqual({
      chat: { id: REVIEWER, type: "private", first_name: `User${REVIEWER}` },
      message_id: sent.message_id,
      user: { id: REVIEWER, is_bot: false, first_name: `User${REVIEWER}` },
      date: expect.any(Number),
      old_reaction: [{ type: "emoji", emoji: "👍" }],
      new_reaction: [{ type: "emoji", emoji: "👎" }],
    });
    await api.getUpdates({ offset: update!.update_id + 1, allowed_updates: [] });
    expect(double.injectReaction({ chatId: GROUP, messageId: 1, actorChat: GROUP, newEmojis: ["😴"] }).queued).toBe(false);
    expect(() => double.injectReaction({ chatId: REVIEWER, messageId: 1, userId: REVIEWER, newEmojis: ["❌"] })).toThrow(/not a reaction/);
  });

  it("terminates the held poll with 409 when another one comes", async () => {
    const first = api.getUpdates({ timeout: 5 }).catch((e: unknown) => e);
    await until(pollHeld);
    const second = api.getUpdates({ timeout: 5 });
    const error = await first;
    expect(error).toBeInstanceOf(GrammyError);
    expect([(error as GrammyError).error_code, (error as GrammyError).description]).toEqual([
      409,
      "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    ]);
    double.injectMessage({ chatId: REVIEWER, userId: REVIEWER, text: "for the second" });
    expect((await second)[0]?.message?.text).toBe("for the second");
  });

  it("loses nothing when a poll is aborted or its answer is dropped", async () => {
    const controller = new AbortController();
    const aborted = api.getUpdates({ timeout: 5 }, controller.signal as Parameters<Api["getUpdates"]>[1]).catch((e: unknown) => e);
    await until(pollHeld);
    controller.abort();
    expect(await aborted).toBeInstanceOf(HttpError);
    await double.waitForCall("getUpdates", (c) => c.outcome.kind === "aborted");
    double.injectMessage({ chatId: REVIEWER, userId: REVIEWER, text: "kept" });
    double.dropResponseAfterAccept("getUpdates");
    expect(await api.getUpdates().catch((e: unknown) => e)).toBeInstanceOf(HttpError);
    expect((await api.getUpdates())[0]?.message?.text).toBe("kept");
    expect(double.calls("getUpdates").map((c) => c.outcome.kind)).toEqual(["aborted", "dropped", "ok"]);
  });

  it("refuses getUpdates while a webhook is set, until deleteWebhook", async () => {
    await api.setWebhook("https://example.invalid/hook");
    const e = (await api.getUpdates().then(
      () => undefined,
      (x: unknown) => x,
    )) as GrammyError;
    expect([e.error_code, e.description]).toEqual([
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    ]);
    await api.deleteWebhook();
    expect(await api.getUpdates()).toEqual([]);
  });
});

describe("a real grammY bot", () => {
  it("receives callbacks, replies and reactions with bot.start, and answers the callback", async () => {
    const bot = new Bot(double.token, { client: { apiRoot: double.url } });
    const seen: string[] = [];
    bot.on("callback_query:data", async (ctx) => {
      seen.push(`button ${ctx.callbackQuery.data} on ${ctx.callbackQuery.message?.message_id}`);
      await ctx.answerCallbackQuery({ text: "Sent" });
    });
    bot.on(
      "message_reaction",
      (ctx) => void seen.push(`reaction ${ctx.messageReaction.new_reaction.map((r) => (r.type === "emoji" ? r.emoji : "?")).join("")}`),
    );
    bot.on("message:text", (ctx) => void seen.push(`reply "${ctx.message.text}" to ${ctx.message.reply_to_message?.text}`));
    const started = new Promise<void>((resolve) => void bot.start({ allowed_updates: ALL, timeout: 1, onStart: () => resolve() }));
    await started;
    const review = await bot.api.sendMessage(REVIEWER, "draft", {
      reply_markup: { inline_keyboard: [[{ text: "👍 Send", callback_data: "send" }]] },
    });
    await until(() => double.allowedUpdates !== undefined);
    const { update } = double.injectCallback({ chatId: REVIEWER, messageId: review.message_id, userId: REVIEWER, data: "send" });
    expect(update.callback_query?.message).toMatchObject({
      message_id: review.message_id,
      text: "draft",
      reply_markup: review.reply_markup,
    });
    await double.waitForCall("answerCallbackQuery");
    double.injectMessage({ chatId: REVIEWER, userId: REVIEWER, text: "fix the typo", replyToMessageId: review.message_id });
    double.injectReaction({ chatId: REVIEWER, messageId: review.message_id, userId: REVIEWER, newEmojis: ["👍"] });
    await until(() => seen.length === 3);
    await bot.stop();
    expect(seen).toEqual(["button send on 1", 'reply "fix the typo" to draft', "reaction 👍"]);
    expect(double.lastAnsweredCallback).toMatchObject({ callbackQueryId: update.callback_query?.id, text: "Sent" });
    expect(double.pendingUpdates()).toEqual([]);
    expect(double.calls("deleteWebhook")).toHaveLength(1);
  });

  it("works under @grammyjs/runner, and a second answer to the same query is refused", async () => {
    const bot = new Bot(double.token, { client: { apiRoot: double.url } });
    const answers: string[] = [];
    bot.on("callback_query", async (ctx) => {
      await ctx.answerCallbackQuery();
      await ctx.answerCallbackQuery().catch((e: GrammyError) => answers.push(e.description));
    });
    const runner = run(bot, { runner: { fetch: { allowed_updates: ALL, timeout: 1 }, silent: true } });
    double.injectCallback({ chatId: REVIEWER, messageId: 5, userId: REVIEWER, data: "x" });
    await until(() => answers.length === 1);
    await runner.stop();
    expect(answers).toEqual(["Bad Request: query is too old and response timeout expired or query ID is invalid"]);
  });
});

/** True while a getUpdates is held by the double (its record stays pending until it is answered). */
function pollHeld(): boolean {
  return double.calls("getUpdates").some((c) => c.outcome.kind === "pending");
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
