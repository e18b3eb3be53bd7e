import { describe, expect, it } from "vitest";
import { chooseSender, type SenderFacts } from "../../src/business/sender-choice.js";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const HOUR = 3_600_000;
const connection = {
  id: "bc1",
  user_id: 5,
  user_name: "Owen",
  can_reply: true,
  enabled: true,
  connected_at: new Date(NOW).toISOString(),
  checked_at: new Date(NOW).toISOString(),
};
const chat = {
  chat_id: 42,
  name: "Anna",
  last_incoming: NOW - 2 * HOUR,
  messages: [{ message_id: 9, at: NOW - 2 * HOUR, author: "Anna", text: "Lunch?" }],
};
const facts = (o: Partial<SenderFacts>): SenderFacts => ({
  sendAs: "owner",
  destinationChatId: "42",
  replyToMessageId: 9,
  connection,
  chat,
  botUsername: "the_bot",
  now: NOW,
  ...o,
});

describe("chooseSender", () => {
  it("owner: the connection's identity, the person as audience, the answered message quoted", () => {
    const c = chooseSender(facts({}));
    expect(c).toMatchObject({
      ok: true,
      sender: { kind: "owner", connection_id: "bc1", owner_user_id: 5, person_name: "Anna" },
      answering: { message_id: 9, author: "Anna", text: "Lunch?" },
      audience: { kind: "private", title: "Anna", chat_id: "42" },
      warnings: [],
    });
  });

  it("owner without a connection or to a group is refused naming send_as; a closed window is a warning", () => {
    expect(chooseSender(facts({ connection: null }))).toMatchObject({ ok: false, field: "send_as" });
    expect(chooseSender(facts({ destinationChatId: "-1001" }))).toMatchObject({ ok: false, field: "send_as" });
    const late = chooseSender(facts({ chat: { ...chat, last_incoming: NOW - 25 * HOUR } }));
    expect(late.ok && late.warnings[0]).toMatch(/^send_as: cannot send as the owner now: Anna last wrote 25 h ago/);
  });

  it("auto: the owner where Telegram allows it, else the bot with the reason", () => {
    expect(chooseSender(facts({ sendAs: "auto" }))).toMatchObject({ ok: true, sender: { kind: "owner" } });
    expect(chooseSender(facts({ sendAs: "auto", connection: { ...connection, can_reply: false } }))).toMatchObject({
      ok: true,
      sender: { kind: "bot", username: "the_bot", why_not_owner: "the Telegram Business connection has no right to reply (can_reply)" },
    });
    expect(chooseSender(facts({ sendAs: "bot" }))).toMatchObject({
      ok: true,
      sender: { kind: "bot", why_not_owner: null },
      answering: null,
    });
  });
});
