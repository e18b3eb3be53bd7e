import { Api, GrammyError } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { startTelegramDouble, type TelegramDouble } from "./index.js";

const OWNER = 111;
const FORUM = -1001234567890;

let double: TelegramDouble;
afterEach(() => double?.stop());

async function start(hasTopicsEnabled: boolean, forum: { botCanManageTopics?: boolean } = {}): Promise<Api> {
  double = await startTelegramDouble({
    bot: { hasTopicsEnabled },
    chats: [
      { id: OWNER, type: "private", firstName: "Owner" },
      { id: FORUM, type: "supergroup", title: "Review", isForum: true, botIsAdmin: true, ...forum },
    ],
  });
  return new Api(double.token, { apiRoot: double.url });
}

async function refusal(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GrammyError);
  return (error as GrammyError).description;
}

describe("topics in a private chat (Bot API 9.3/9.4)", () => {
  it("getMe says has_topics_enabled; createForumTopic returns a ForumTopic whose id is its service message's", async () => {
    const api = await start(true);
    expect(await api.getMe()).toMatchObject({ has_topics_enabled: true, allows_users_to_create_topics: true });
    const topic = await api.createForumTopic(OWNER, "Scribe");
    expect(topic).toEqual({ message_thread_id: 1, name: "Scribe", icon_color: 0x6fb9f0 });
    expect(double.message(OWNER, 1)).toMatchObject({ forum_topic_created: { name: "Scribe" }, is_topic_message: true });
    expect(double.topics(OWNER)).toEqual([topic]);
    expect(await refusal(api.createForumTopic(OWNER, " "))).toBe("Bad Request: TOPIC_TITLE_EMPTY");
  });

  it("a message in a topic carries message_thread_id and is_topic_message; an unknown thread is refused", async () => {
    const api = await start(true);
    const { message_thread_id: thread } = await api.createForumTopic(OWNER, "CoS");
    const m = await api.sendMessage(OWNER, "in the topic", { message_thread_id: thread });
    expect(m).toMatchObject({ message_thread_id: thread, is_topic_message: true });
    const main = await api.sendMessage(OWNER, "in the main thread");
    expect(main.message_thread_id).toBeUndefined();
    expect(await refusal(api.sendMessage(OWNER, "x", { message_thread_id: 999 }))).toBe("Bad Request: message thread not found");
  });

  it("a reply stays in its target's topic: one without the topic's message_thread_id is refused, whatever allow_sending_without_reply says", async () => {
    const api = await start(true);
    const { message_thread_id: thread } = await api.createForumTopic(OWNER, "Margot");
    const post = await api.sendMessage(OWNER, "post", { message_thread_id: thread });
    const lenient = { message_id: post.message_id, allow_sending_without_reply: true };
    expect(await refusal(api.sendMessage(OWNER, "reply", { reply_parameters: lenient }))).toBe(
      "Bad Request: message to be replied not found",
    );
    const reply = await api.sendMessage(OWNER, "reply", { message_thread_id: thread, reply_parameters: lenient });
    expect(reply).toMatchObject({ message_thread_id: thread, reply_to_message: { message_id: post.message_id } });
  });

  it("a user's message and a button under a message in a topic carry its thread", async () => {
    const api = await start(true);
    const { message_thread_id: thread } = await api.createForumTopic(OWNER, "Scribe");
    const post = await api.sendMessage(OWNER, "post", {
      message_thread_id: thread,
      reply_markup: { inline_keyboard: [[{ text: "x", callback_data: "x" }]] },
    });
    const reply = double.injectMessage({ chatId: OWNER, userId: OWNER, text: "a note", replyToMessageId: post.message_id });
    expect(reply.update.message).toMatchObject({ message_thread_id: thread, is_topic_message: true });
    const typed = double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/pending", threadId: thread });
    expect(typed.update.message).toMatchObject({ message_thread_id: thread, is_topic_message: true });
    const tap = double.injectCallback({ chatId: OWNER, messageId: post.message_id, userId: OWNER, data: "x" });
    expect(tap.update.callback_query?.message).toMatchObject({ message_thread_id: thread, is_topic_message: true });
  });

  it("a deleted topic takes its messages along: sends to it and edits of them are refused", async () => {
    const api = await start(true);
    const { message_thread_id: thread } = await api.createForumTopic(OWNER, "Scribe");
    const post = await api.sendMessage(OWNER, "post", { message_thread_id: thread });
    expect(await api.deleteForumTopic(OWNER, thread)).toBe(true);
    expect(double.topics(OWNER)).toEqual([]);
    expect(await refusal(api.sendMessage(OWNER, "x", { message_thread_id: thread }))).toBe("Bad Request: message thread not found");
    expect(await refusal(api.editMessageText(OWNER, post.message_id, "y"))).toBe("Bad Request: message to edit not found");
    expect(await refusal(api.deleteForumTopic(OWNER, thread))).toBe("Bad Request: message thread not found");
    const again = await api.createForumTopic(OWNER, "Scribe");
    expect(double.deleteTopic(OWNER, again.message_thread_id)).toBe(true);
    expect(await refusal(api.sendMessage(OWNER, "x", { message_thread_id: again.message_thread_id }))).toBe(
      "Bad Request: message thread not found",
    );
  });

  it("without topics enabled: getMe says so and createForumTopic is refused; turning them on in @BotFather changes getMe", async () => {
    const api = await start(false);
    expect((await api.getMe()).has_topics_enabled).toBe(false);
    expect(await refusal(api.createForumTopic(OWNER, "Scribe"))).toBe("Bad Request: the chat is not a forum");
    double.setTopicsEnabled(true);
    expect((await api.getMe()).has_topics_enabled).toBe(true);
    expect((await api.createForumTopic(OWNER, "Scribe")).name).toBe("Scribe");
  });
});

describe("topics in a forum supergroup", () => {
  it("the bot needs can_manage_topics to create one; a reply without a thread goes into its target's topic", async () => {
    const api = await start(false);
    expect(await api.getChatMember(FORUM, double.botInfo.id)).toMatchObject({ status: "administrator", can_manage_topics: true });
    const { message_thread_id: thread } = await api.createForumTopic(FORUM, "CoS", { icon_color: 0xffd67e });
    const post = await api.sendMessage(FORUM, "post", { message_thread_id: thread });
    const reply = await api.sendMessage(FORUM, "reply", { reply_parameters: { message_id: post.message_id } });
    expect(reply).toMatchObject({ message_thread_id: thread, is_topic_message: true });
  });

  it("without the right: refused", async () => {
    const api = await start(false, { botCanManageTopics: false });
    expect(await api.getChatMember(FORUM, double.botInfo.id)).toMatchObject({ can_manage_topics: false });
    expect(await refusal(api.createForumTopic(FORUM, "CoS"))).toBe("Bad Request: not enough rights to create a topic");
  });
});
