import { Api } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUDIENCE_UNREADABLE } from "../../../src/channels/channel.js";
import { TelegramChannel, type TelegramTarget } from "../../../src/channels/telegram/telegram-channel.js";
import { SimulatedClock } from "../../../src/clock/simulated-clock.js";
import { TelegramAudienceResolver } from "../../../src/telegram/audience-resolver.js";
import { telegramSendCall } from "../../../src/telegram/send-call.js";
import { startTelegramDouble, type TelegramDouble } from "../../telegram-double/index.js";
import { T0 } from "../../support/drafts.js";

// Telegram in the one shape of a channel (issue 33 item 1), against the Bot API double: grammY's real calls.

const GROUP = -1_001_234_567_890;
const BIG = -1_009_876_543_210;
const REF = { draftId: "d_1", delivery: 1, reference: "d_1" };
const to = (chatId: number): TelegramTarget => ({
  channel: "telegram",
  chat_id: String(chatId),
  thread_id: null,
  business_connection_id: null,
  reply_to_message_id: null,
  reply_required: false,
});

let double: TelegramDouble;
let channel: TelegramChannel;

beforeEach(async () => {
  double = await startTelegramDouble({
    chats: [
      { id: GROUP, type: "supergroup", title: "Team", memberCount: 5 },
      { id: BIG, type: "supergroup", title: "Everyone", memberCount: 5000 },
    ],
  });
  const api = new Api(double.token, { apiRoot: double.url });
  const clock = new SimulatedClock(T0);
  const resolver = new TelegramAudienceResolver({ api, botId: double.botInfo.id, clock });
  channel = new TelegramChannel({
    call: telegramSendCall(api),
    getMe: () => api.getMe(),
    resolve: (chatId) => resolver.resolve(chatId),
    confirmOver: 100,
    now: () => clock.now(),
  });
});

afterEach(async () => {
  await double.stop();
});

describe("Telegram as a channel", () => {
  it("sends the text byte for byte and says where it is: the chat and Telegram's message id", async () => {
    const text = "Hi team @channel, <b>not markup</b>\n\n  indented";
    const outcome = await channel.send(to(GROUP), text, REF);
    const [sent] = double.messages(GROUP);
    expect(sent?.text).toBe(text);
    expect(outcome).toEqual({ kind: "ok", sentRef: { chat_id: String(GROUP), message_id: sent!.messageId } });
    expect(channel.rateKey(to(GROUP))).toBe(String(GROUP));
  });

  it("tells a permanent refusal, a rate limit and an answer nobody can read apart, as every channel does", async () => {
    double.failNext("sendMessage", { error_code: 400, description: "Bad Request: chat not found" });
    expect(await channel.send(to(GROUP), "a", REF)).toEqual({ kind: "refused", reason: "400: Bad Request: chat not found" });
    double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 7", retry_after: 7 });
    expect(await channel.send(to(GROUP), "b", REF)).toMatchObject({ kind: "retry_after", seconds: 7 });
    double.failNext("sendMessage", { error_code: 502, description: "Bad Gateway" });
    expect(await channel.send(to(GROUP), "c", REF)).toMatchObject({ kind: "unknown" });
    expect(double.messages(GROUP)).toEqual([]);
    // A lost answer cannot be looked up on Telegram: never guessed, never resent by itself.
    expect(await channel.findSent(to(GROUP), REF)).toMatchObject({ kind: "unknown" });
  });

  it("says who it speaks as, and who reads a chat: a group over AUDIENCE_CONFIRM_OVER asks the extra tap, one Telegram does not describe is unreadable", async () => {
    expect(await channel.whoAmI()).toEqual({ ok: true, speaksAs: `@${double.botInfo.username}` });
    const small = await channel.readAudience(to(GROUP), "hi");
    expect(small).toMatchObject({ channel: "telegram", readerCount: 5, confirmReasons: [], problem: null });
    expect(small.lines).toEqual(["Team · supergroup · 5 members"]);
    const big = await channel.readAudience(to(BIG), "hi");
    expect(big.confirmReasons).toEqual(["5000 members, over AUDIENCE_CONFIRM_OVER (100)"]);
    expect(big.fingerprint).not.toBe(small.fingerprint);
    double.failNext("getChat", { error_code: 502, description: "Bad Gateway" });
    const unknown = await channel.readAudience(to(-1_000_000_000_001), "hi");
    expect(unknown).toMatchObject({ readerCount: null, confirmReasons: [AUDIENCE_UNREADABLE] });
  });
});
