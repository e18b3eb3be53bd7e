import { Api, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramDouble, type TelegramDouble } from "./index.js";

const OWNER = 111;
const ANNA = 333;

let double: TelegramDouble;
let api: Api;

beforeEach(async () => {
  double = await startTelegramDouble({
    chats: [{ id: OWNER, type: "private", firstName: "Owen" }],
    users: [
      { id: OWNER, firstName: "Owen", username: "owen" },
      { id: ANNA, firstName: "Anna" },
    ],
  });
  api = new Api(double.token, { apiRoot: double.url });
});
afterEach(() => double.stop());

async function refusal(call: Promise<unknown>): Promise<[number, string]> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GrammyError);
  const e = error as GrammyError;
  return [e.error_code, e.description];
}

const asOwner = (id: string, text: string, replyTo?: number) =>
  api.sendMessage(ANNA, text, { business_connection_id: id, ...(replyTo ? { reply_parameters: { message_id: replyTo } } : {}) });

describe("Telegram Business in the double", () => {
  it("delivers business_connection and business_message updates by default, and only when allowed_updates names them", async () => {
    const { id } = double.connectBusiness({ userId: OWNER });
    double.injectBusinessMessage({ connectionId: id, fromId: ANNA, text: "Are we still on for Friday?" });
    const updates: Update[] = await api.getUpdates({ timeout: 0 });
    expect(updates.map((u) => Object.keys(u).find((k) => k !== "update_id"))).toEqual(["business_connection", "business_message"]);
    expect(updates[0]!.business_connection).toMatchObject({
      id,
      user: { id: OWNER, first_name: "Owen" },
      user_chat_id: OWNER,
      rights: { can_reply: true },
      is_enabled: true,
    });
    expect(updates[1]!.business_message).toMatchObject({
      business_connection_id: id,
      from: { id: ANNA, first_name: "Anna" },
      chat: { id: ANNA, type: "private" },
      message_id: 1,
      text: "Are we still on for Friday?",
    });
    await api.getUpdates({ offset: updates[1]!.update_id + 1, timeout: 0, allowed_updates: ["message"] });
    const left = double.injectBusinessMessage({ connectionId: id, fromId: ANNA, text: "hello?" });
    expect(left.queued).toBe(false);
  });

  it("getBusinessConnection answers the connection as it stands, and refuses an id the user removed", async () => {
    const { id } = double.connectBusiness({ userId: OWNER, canReply: false });
    expect(await api.getBusinessConnection(id)).toMatchObject({ id, is_enabled: true, rights: {} });
    double.changeBusiness(id, { enabled: false });
    expect((await api.getBusinessConnection(id)).is_enabled).toBe(false);
    const gone = double.revokeBusiness(id);
    expect(gone.update.business_connection).toMatchObject({ id, is_enabled: false });
    expect(await refusal(api.getBusinessConnection(id))).toEqual([400, "Bad Request: BUSINESS_CONNECTION_INVALID"]);
  });

  it("sends as the account, as a reply, only inside the 24 h window, with can_reply, on an enabled connection", async () => {
    const { id } = double.connectBusiness({ userId: OWNER });
    const asked = double.injectBusinessMessage({ connectionId: id, fromId: ANNA, text: "Friday?", ageSeconds: 2 * 3600 });
    const sent = await asOwner(id, "Yes, 7 pm.", asked.messageId);
    expect(sent).toMatchObject({
      business_connection_id: id,
      from: { id: OWNER },
      sender_business_bot: { id: double.botInfo.id },
      chat: { id: ANNA },
      reply_to_message: { message_id: asked.messageId, text: "Friday?" },
    });
    expect(double.messages(ANNA)).toMatchObject([{ text: "Yes, 7 pm.", businessConnectionId: id, replyToMessageId: asked.messageId }]);
    // A reply target that is gone is no error when sending as the account.
    expect((await asOwner(id, "Still there?", 99)).reply_to_message).toBeUndefined();

    double.changeBusiness(id, { canReply: false });
    expect(await refusal(asOwner(id, "x"))).toEqual([403, "Forbidden: BOT_BUSINESS_MISSING"]);
    double.changeBusiness(id, { canReply: true, enabled: false });
    expect(await refusal(asOwner(id, "x"))).toEqual([400, "Bad Request: BUSINESS_CONNECTION_NOT_ALLOWED"]);
    double.changeBusiness(id, { enabled: true });
    expect(await refusal(api.sendMessage(444, "x", { business_connection_id: id }))).toEqual([400, "Bad Request: BUSINESS_PEER_INVALID"]);
    double.revokeBusiness(id);
    expect(await refusal(asOwner(id, "x"))).toEqual([400, "Bad Request: BUSINESS_CONNECTION_INVALID"]);
    expect(double.messages(ANNA)).toHaveLength(2);
  });

  it("keeps each account's connection apart: its own id, chats and numbering; connecting again keeps the id", async () => {
    const BOB = 222;
    double.addUser({ id: BOB, firstName: "Bob", username: "bob_r" });
    const owner = double.connectBusiness({ userId: OWNER }).id;
    const bob = double.connectBusiness({ userId: BOB });
    expect(bob.id).not.toBe(owner);
    expect(bob.injected.update.business_connection).toMatchObject({
      user: { id: BOB, first_name: "Bob", username: "bob_r" },
      user_chat_id: BOB,
    });
    expect(double.connectBusiness({ userId: OWNER, canReply: false }).id).toBe(owner);
    double.changeBusiness(owner, { canReply: true });
    const toOwner = double.injectBusinessMessage({ connectionId: owner, fromId: ANNA, text: "Owen?" });
    const toBob = double.injectBusinessMessage({ connectionId: bob.id, fromId: ANNA, text: "Bob?" });
    // Each account's chat with Anna numbers its own messages.
    expect([toOwner.messageId, toBob.messageId]).toEqual([1, 1]);
    expect((await asOwner(bob.id, "Bob here.", toBob.messageId)).from?.id).toBe(BOB);
    expect((await asOwner(owner, "Owen here.")).from?.id).toBe(OWNER);
    expect(double.messages(ANNA).map((m) => [m.text, m.businessConnectionId, m.message.from?.id])).toEqual([
      ["Bob here.", bob.id, BOB],
      ["Owen here.", owner, OWNER],
    ]);
    // Removed, then connected again: a new connection.
    double.revokeBusiness(bob.id);
    expect(double.connectBusiness({ userId: BOB }).id).not.toBe(bob.id);
  });

  it("moves a connection to another account silently: no update, and getBusinessConnection and sends name that account", async () => {
    const BOB = 222;
    double.addUser({ id: BOB, firstName: "Bob" });
    const { id } = double.connectBusiness({ userId: OWNER });
    const asked = double.injectBusinessMessage({ connectionId: id, fromId: ANNA, text: "Friday?" });
    const before: Update[] = await api.getUpdates({ timeout: 0 });
    double.moveBusiness(id, BOB);
    expect(await api.getUpdates({ offset: before.at(-1)!.update_id + 1, timeout: 0 })).toEqual([]);
    expect(await api.getBusinessConnection(id)).toMatchObject({ id, user: { id: BOB, first_name: "Bob" }, user_chat_id: BOB });
    expect((await asOwner(id, "Yes.", asked.messageId)).from?.id).toBe(BOB);
  });

  it("refuses a chat whose person last wrote more than 24 h ago", async () => {
    const { id } = double.connectBusiness({ userId: OWNER });
    double.injectBusinessMessage({ connectionId: id, fromId: ANNA, text: "old", ageSeconds: 24 * 3600 + 5 });
    expect(await refusal(asOwner(id, "late"))).toEqual([400, "Bad Request: BUSINESS_PEER_INVALID"]);
    double.injectBusinessMessage({ connectionId: id, fromId: ANNA, text: "new" });
    expect((await asOwner(id, "now")).text).toBe("now");
  });
});
