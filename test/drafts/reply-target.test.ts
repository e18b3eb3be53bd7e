import { describe, expect, it } from "vitest";
import { answeringBlock } from "../../src/business/sender-text.js";
import { replyTarget } from "../../src/drafts/reply-target.js";
import type { Sender } from "../../src/drafts/sender.js";
import { draftIn, T0 } from "../support/drafts.js";

const OWNER: Sender = {
  kind: "owner",
  connection_id: "bc1",
  owner_user_id: 1001,
  owner_name: "Owen",
  owner_username: null,
  person_name: "Anna",
  last_incoming_at: new Date(T0).toISOString(),
};
const BOT: Sender = { kind: "bot", username: "the_bot", why_not_owner: "no connection" };
const SEEN = { message_id: 9, author: "Anna", at: new Date(T0).toISOString(), text: "Lunch?" };
const shown = (d: ReturnType<typeof draftIn>) => answeringBlock(d, 0, T0, "UTC").text;

/** The link the post gives to message 4711 of a draft's destination (a supergroup's t.me/c/ link, or none). */
function link(d: ReturnType<typeof draftIn>): string {
  return `https://t.me/c/${d.destination_chat_id.replace(/^-100/, "")}/4711`;
}

describe("a reply to a message not seen here says where it is and how to read it (issue 35, point 6)", () => {
  it("a public group: its t.me link; a supergroup: its t.me/c link, as a url entity; a basic group: which chat to open", () => {
    const base = draftIn("pending", { send_as: "bot", reply_to_message_id: 100 });
    const audience = { ...base.audience!, chat_id: "-1009876543210", kind: "supergroup" as const, title: "Board", username: null };
    const supergroup = { ...base, audience, destination_chat_id: "-1009876543210" };
    const block = answeringBlock(supergroup, 10, T0, "UTC");
    expect(block.text).toBe("\n↩️ In reply to message 100, not seen here: see it in Board: https://t.me/c/9876543210/100");
    expect(block.entities).toEqual([{ type: "url", offset: 10 + block.text.indexOf("https"), length: 29 }]);
    const publicGroup = { ...supergroup, audience: { ...audience, username: "board_chat" } };
    expect(shown(publicGroup)).toBe("\n↩️ In reply to message 100, not seen here: see it in Board: https://t.me/board_chat/100");
    const basic = { ...base, audience: { ...audience, chat_id: "-4567", kind: "group" as const }, destination_chat_id: "-4567" };
    expect(shown(basic)).toBe("\n↩️ In reply to message 100, not seen here: open Board in Telegram to read it before you decide.");
  });
});

describe("replyTarget: the reply a post shows is the reply its send makes", () => {
  it("as the owner: a seen message is quoted and replied to; an unseen one is shown as such and replied to only", () => {
    const seen = draftIn("pending", { send_as: "owner", sender: OWNER, reply_to_message_id: 9, answering: SEEN });
    expect(replyTarget(seen)).toEqual({ kind: "reply", message_id: 9, seen: true });
    expect(shown(seen)).toMatch(/^\n↩️ In reply to Anna, .*:\nLunch\?$/);
    const unseen = draftIn("pending", { send_as: "owner", sender: OWNER, reply_to_message_id: 4711, answering: null });
    expect(replyTarget(unseen)).toEqual({ kind: "reply", message_id: 4711, seen: false });
    expect(shown(unseen)).toBe(
      "\n↩️ In reply to message 4711, not seen here: open your chat with Anna in Telegram to read it before you decide.",
    );
  });

  it("as the bot: asked for as the bot, a reply the daemon cannot see; moved to the bot, no reply, and said so", () => {
    const asked = draftIn("pending", { send_as: "bot", reply_to_message_id: 4711 });
    expect(replyTarget(asked)).toEqual({ kind: "reply", message_id: 4711, seen: false });
    expect(shown(asked)).toBe(
      `\n↩️ In reply to message 4711, not seen here: see it in ${asked.audience?.title ?? asked.destination_chat_id}: ${link(asked)}`,
    );
    const moved = draftIn("pending", { send_as: "owner", sender: BOT, reply_to_message_id: 9, answering: SEEN });
    expect(replyTarget(moved)).toEqual({ kind: "dropped", message_id: 9 });
    expect(shown(moved)).toMatch(
      /^\n↩️ Not as a reply: message 9 is in your own chat with them, where the bot cannot reply\n💬 It answers Anna, /,
    );
    expect(replyTarget(draftIn("pending"))).toEqual({ kind: "none" });
    expect(shown(draftIn("pending"))).toBe("");
  });
});
