import { Api, GrammyError } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramDouble, type TelegramDouble } from "./index.js";

const REVIEWER = 111;
const GROUP = -1001234567890;
const BLOCKED = 222;

let double: TelegramDouble;
let api: Api;

beforeEach(async () => {
  double = await startTelegramDouble({
    chats: [
      { id: REVIEWER, type: "private", firstName: "Rita" },
      {
        id: GROUP,
        type: "supergroup",
        title: "Review",
        isForum: true,
        topics: [7],
        botIsAdmin: true,
        members: [{ userId: REVIEWER, status: "creator" }],
      },
      { id: BLOCKED, type: "private", blocked: true },
    ],
  });
  api = new Api(double.token, { apiRoot: double.url });
});
afterEach(() => double.stop());

async function refusal(call: Promise<unknown>): Promise<GrammyError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GrammyError);
  return error as GrammyError;
}

describe("the wire", () => {
  it("answers getMe for the token, 401 for another, 404 for an unknown method", async () => {
    expect(double.token).toMatch(/^\d+:AA[\w-]{33}$/);
    expect(await api.getMe()).toMatchObject({ id: double.botInfo.id, is_bot: true });
    const wrong = await refusal(new Api("1:AAwrong", { apiRoot: double.url }).getMe());
    expect([wrong.error_code, wrong.description]).toEqual([401, "Unauthorized"]);
    const res = await fetch(`${double.url}/bot${double.token}/noSuchMethod`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });
  });

  it("accepts GET with a query string and case-insensitive method names", async () => {
    const res = await fetch(`${double.url}/bot${double.token}/SENDMESSAGE?chat_id=${REVIEWER}&text=hi`);
    expect(await res.json()).toMatchObject({ ok: true, result: { message_id: 1, text: "hi" } });
  });
});

describe("sendMessage", () => {
  it("returns a full Message, counts ids per chat and logs what was sent", async () => {
    const markup = { inline_keyboard: [[{ text: "👍 Send", callback_data: "send:d1" }]] };
    const first = await api.sendMessage(REVIEWER, "draft one", { reply_markup: markup });
    const second = await api.sendMessage(REVIEWER, "draft two");
    const inTopic = await api.sendMessage(GROUP, "in a topic", { message_thread_id: 7 });
    expect(first).toMatchObject({
      message_id: 1,
      text: "draft one",
      reply_markup: markup,
      chat: { id: REVIEWER, type: "private", first_name: "Rita" },
      from: { id: double.botInfo.id, is_bot: true },
    });
    expect(first.date).toBeGreaterThan(1_600_000_000);
    expect(second.message_id).toBe(2);
    expect(inTopic).toMatchObject({
      message_id: 1,
      message_thread_id: 7,
      is_topic_message: true,
      chat: { type: "supergroup", is_forum: true },
    });
    expect(double.messages(REVIEWER).map((m) => [m.messageId, m.text, m.parseMode])).toEqual([
      [1, "draft one", undefined],
      [2, "draft two", undefined],
    ]);
    expect(double.messages(GROUP)[0]).toMatchObject({ threadId: 7, text: "in a topic" });
  });

  it("refuses as Telegram does", async () => {
    const cases: Array<[Promise<unknown>, number, string]> = [
      [api.sendMessage(999, "x"), 400, "Bad Request: chat not found"],
      [api.sendMessage(REVIEWER, ""), 400, "Bad Request: message text is empty"],
      [api.sendMessage(REVIEWER, "  \n "), 400, "Bad Request: message text is empty"],
      [api.sendMessage(REVIEWER, "x".repeat(4097)), 400, "Bad Request: message is too long"],
      [api.sendMessage(REVIEWER, "😀".repeat(2049)), 400, "Bad Request: message is too long"],
      [
        api.sendMessage(REVIEWER, "x", { reply_markup: { inline_keyboard: [[{ text: "a", callback_data: "x".repeat(65) }]] } }),
        400,
        "Bad Request: BUTTON_DATA_INVALID",
      ],
      [api.sendMessage(BLOCKED, "x"), 403, "Forbidden: bot was blocked by the user"],
      [api.sendMessage(GROUP, "x", { message_thread_id: 8 }), 400, "Bad Request: message thread not found"],
      [
        api.sendMessage(REVIEWER, "a < b", { parse_mode: "HTML" }),
        400,
        'Bad Request: can\'t parse entities: Unsupported start tag "" at byte offset 2',
      ],
    ];
    for (const [call, code, description] of cases) {
      const e = await refusal(call);
      expect([e.error_code, e.description]).toEqual([code, description]);
    }
    expect(double.messages()).toEqual([]);
  });

  it("accepts exactly 4096 UTF-16 units, measured after entity parsing, and records parse_mode", async () => {
    await api.sendMessage(REVIEWER, "😀".repeat(2048));
    const html = await api.sendMessage(REVIEWER, `<b>${"x".repeat(4096)}</b>`, { parse_mode: "HTML" });
    expect(html.text).toHaveLength(4096);
    expect(double.messages(REVIEWER)[1]?.parseMode).toBe("HTML");
  });

  it("takes date_time entities (Bot API 9.5) as Telegram checks them: UTF-16 offsets, an integer unix_time, a known format", async () => {
    const now = Math.floor(Date.now() / 1000);
    // "😀" is two UTF-16 units: the time starts at offset 11, as JavaScript counts.
    const text = "😀 Expires Wed 3 Dec 23:36.";
    const at = { offset: 11, length: 15 };
    const ok = await api.sendMessage(REVIEWER, text, {
      entities: [{ type: "date_time", ...at, unix_time: now + 60, date_time_format: "r" }],
    });
    expect(ok.entities).toEqual([{ type: "date_time", ...at, unix_time: now + 60, date_time_format: "r" }]);
    const bad = (entity: Record<string, unknown>) => api.sendMessage(REVIEWER, text, { entities: [entity as never] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: "date_time", ...at, unix_time: now + 0.5 }, "date_time entity must have an integer unix_time"],
      [{ type: "date_time", ...at }, "date_time entity must have an integer unix_time"],
      [{ type: "date_time", ...at, unix_time: -1 }, "date_time entity unix_time is out of range"],
      [{ type: "date_time", ...at, unix_time: now + 1100 * 86_400 }, "date_time entity unix_time is out of range"],
      [{ type: "date_time", ...at, unix_time: now, date_time_format: "rt" }, "unsupported date_time_format"],
      [{ type: "date_time", ...at, unix_time: now, date_time_format: "tw" }, "unsupported date_time_format"],
      [{ type: "date_time", offset: 11, length: 40, unix_time: now }, "entity beyond the end of the text"],
    ];
    for (const [entity, why] of cases) expect((await refusal(bad(entity))).description).toBe(`Bad Request: can't parse entities: ${why}`);
    for (const format of ["", "w", "wDT", "dt", "T"])
      expect((await bad({ type: "date_time", ...at, unix_time: now, date_time_format: format })).text).toBe(text);
    const nested = api.sendMessage(REVIEWER, text, {
      entities: [{ type: "date_time", ...at, unix_time: now } as never, { type: "url", offset: 11, length: 3 }],
    });
    expect((await refusal(nested)).description).toBe("Bad Request: can't parse entities: date_time entities can't contain other entities");
    const inCode = api.sendMessage(REVIEWER, text, {
      entities: [{ type: "code", offset: 0, length: text.length }, { type: "date_time", ...at, unix_time: now } as never],
    });
    expect((await refusal(inCode)).description).toMatch(/code and pre entities can't contain other entities/);
  });

  it("resolves @usernames and sends replies with the stored message", async () => {
    double.addChat({ id: -1009, type: "supergroup", username: "drafts_out" });
    const target = await api.sendMessage("@drafts_out", "first");
    const reply = await api.sendMessage("@drafts_out", "second", { reply_parameters: { message_id: target.message_id } });
    expect(reply.reply_to_message).toMatchObject({ message_id: 1, text: "first" });
    const e = await refusal(api.sendMessage(REVIEWER, "x", { reply_parameters: { message_id: 99 } }));
    expect(e.description).toBe("Bad Request: message to be replied not found");
  });
});

describe("edits", () => {
  it("edits text and markup; unchanged is 'not modified'; an edit without markup removes it", async () => {
    const markup = { inline_keyboard: [[{ text: "👍 Send", callback_data: "s" }]] };
    const sent = await api.sendMessage(REVIEWER, "draft", { reply_markup: markup });
    const same = await refusal(api.editMessageText(REVIEWER, sent.message_id, "draft", { reply_markup: markup }));
    expect(same.description).toMatch(/^Bad Request: message is not modified: /);
    const edited = await api.editMessageText(REVIEWER, sent.message_id, "draft (sent)");
    expect(edited).toMatchObject({ text: "draft (sent)", edit_date: expect.any(Number) });
    expect(double.message(REVIEWER, sent.message_id)?.reply_markup).toBeUndefined();
    await api.editMessageReplyMarkup(REVIEWER, sent.message_id, { reply_markup: markup });
    expect(double.message(REVIEWER, sent.message_id)?.reply_markup).toEqual(markup);
    const missing = await refusal(api.editMessageReplyMarkup(REVIEWER, 42, { reply_markup: markup }));
    expect(missing.description).toBe("Bad Request: message to edit not found");
  });
});

describe("chats, reactions, commands", () => {
  it("reports membership and admins", async () => {
    expect(await api.getChat(GROUP)).toMatchObject({ id: GROUP, type: "supergroup", title: "Review" });
    expect((await api.getChatMember(GROUP, double.botInfo.id)).status).toBe("administrator");
    expect((await api.getChatMember(GROUP, REVIEWER)).status).toBe("creator");
    expect((await api.getChatMember(GROUP, 5)).status).toBe("left");
    expect((await api.getChatAdministrators(GROUP)).map((m) => m.user.id)).toEqual([REVIEWER, double.botInfo.id]);
    double.addChat({ id: GROUP, type: "supergroup", botIsAdmin: false });
    expect((await api.getChatMember(GROUP, double.botInfo.id)).status).toBe("member");
    const e = await refusal(api.getChatAdministrators(REVIEWER));
    expect(e.description).toBe("Bad Request: there are no administrators in the private chat");
  });

  it("sets reactions from Telegram's list only, answers chat actions and stores commands", async () => {
    const sent = await api.sendMessage(REVIEWER, "draft");
    expect(await api.setMessageReaction(REVIEWER, sent.message_id, [{ type: "emoji", emoji: "👀" }])).toBe(true);
    const bad = await refusal(api.setMessageReaction(REVIEWER, sent.message_id, [{ type: "emoji", emoji: "❌" as "👀" }]));
    expect(bad.description).toBe("Bad Request: REACTION_INVALID");
    expect(await api.sendChatAction(REVIEWER, "typing")).toBe(true);
    await api.setMyCommands([{ command: "pending", description: "Drafts awaiting review" }]);
    expect(await api.getMyCommands()).toEqual([{ command: "pending", description: "Drafts awaiting review" }]);
    expect(await api.deleteWebhook()).toBe(true);
    expect(await api.close()).toBe(true);
  });
});
