import { describe, expect, it } from "vitest";
import { chooseSender, type SenderFacts } from "../../src/drafts/sender-choice.js";
import { localDayTime } from "../../src/clock/local-time.js";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const HOUR = 3_600_000;
const connection = {
  id: "bc1",
  user_id: 5,
  user_name: "Owen",
  user_username: "owen",
  can_reply: true,
  enabled: true,
  connected_at: new Date(NOW).toISOString(),
  checked_at: new Date(NOW).toISOString(),
};
const chat = {
  chat_id: 42,
  name: "Anna",
  username: "anna",
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
      sender: { kind: "owner", connection_id: "bc1", owner_user_id: 5, owner_name: "Owen", owner_username: "owen", person_name: "Anna" },
      answering: { message_id: 9, author: "Anna", text: "Lunch?" },
      audience: { kind: "private", title: "Anna", username: "anna", chat_id: "42" },
      warnings: [],
    });
  });

  it("owner to a group is refused naming send_as", () => {
    expect(chooseSender(facts({ destinationChatId: "-1001" }))).toMatchObject({ ok: false, field: "send_as" });
  });

  it("owner that cannot go now goes as the bot, saying why and naming the person, with a warning", () => {
    const late = chooseSender(facts({ chat: { ...chat, last_incoming: NOW - 25 * HOUR } }));
    expect(late).toMatchObject({
      ok: true,
      sender: {
        kind: "bot",
        username: "the_bot",
        // When, as an absolute time: the reason stays on the post, where "25 h ago" would go stale.
        why_not_owner: `Anna (@anna) last wrote ${localDayTime(NOW - 25 * HOUR)}, and Telegram lets you answer as yourself only within 24 h of their message`,
      },
      audience: { kind: "private", title: "Anna", username: "anna", chat_id: "42" },
    });
    expect(late.ok && late.warnings[0]).toMatch(/^send_as: cannot send as the owner: Anna \(@anna\) last wrote \w{3} \d+ \w{3} \d\d:\d\d,/);
    const none = chooseSender(facts({ connection: null }));
    expect(none.ok && none.sender).toMatchObject({
      kind: "bot",
      why_not_owner: expect.stringMatching(/^your Telegram account is not connected/),
    });
    const other = chooseSender(facts({ connection: null, other: { name: "Bob Reviewer", username: "bob" } }));
    expect(other.ok && other.sender.kind === "bot" && other.sender.why_not_owner).toMatch(
      /^your own Telegram account is not connected to the bot \(the account connected to it is Bob Reviewer \(@bob\), and drafts speak only as you/,
    );
  });

  it("a person the daemon never saw is named from the bot's getChat, else as unknown to the bot with the id and why", () => {
    const view = {
      chat_id: "42",
      kind: "private" as const,
      title: "Anna Smith",
      username: "annas",
      member_count: null,
      can_post: null,
      problem: null,
      checked_at: "",
    };
    const named = chooseSender(facts({ chat: undefined, botView: view }));
    expect(named).toMatchObject({
      ok: true,
      sender: { kind: "bot", why_not_owner: expect.stringMatching(/^Anna Smith \(@annas\) has not written to you in the last 24 h/) },
      audience: view,
    });
    const unknown = {
      ...view,
      kind: "unknown" as const,
      title: null,
      username: null,
      problem: "the bot cannot see this chat (Telegram: chat not found)",
    };
    const nameless = chooseSender(facts({ chat: undefined, botView: unknown }));
    expect(nameless.ok && nameless.sender.kind === "bot" && nameless.sender.why_not_owner).toMatch(
      /^user 42 \(unknown to the bot: the bot cannot see this chat \(Telegram: chat not found\)\) has not written to you/,
    );
  });

  it("auto: the owner where Telegram allows it, else the bot with the reason", () => {
    expect(chooseSender(facts({ sendAs: "auto" }))).toMatchObject({ ok: true, sender: { kind: "owner" } });
    expect(chooseSender(facts({ sendAs: "auto", connection: { ...connection, can_reply: false } }))).toMatchObject({
      ok: true,
      sender: { kind: "bot", username: "the_bot", why_not_owner: "your Telegram Business connection has no right to reply (can_reply)" },
      warnings: [],
    });
    expect(chooseSender(facts({ sendAs: "bot" }))).toMatchObject({
      ok: true,
      sender: { kind: "bot", why_not_owner: null },
      answering: null,
    });
  });
});
