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

describe("replyTarget: the reply a post shows is the reply its send makes", () => {
  it("as the owner: a seen message is quoted and replied to; an unseen one is shown as such and replied to only", () => {
    const seen = draftIn("pending", { send_as: "owner", sender: OWNER, reply_to_message_id: 9, answering: SEEN });
    expect(replyTarget(seen)).toEqual({ kind: "reply", message_id: 9, seen: true });
    expect(shown(seen)).toMatch(/^\n↩️ In reply to Anna, .*:\nLunch\?$/);
    const unseen = draftIn("pending", { send_as: "owner", sender: OWNER, reply_to_message_id: 4711, answering: null });
    expect(replyTarget(unseen)).toEqual({ kind: "reply", message_id: 4711, seen: false });
    expect(shown(unseen)).toBe("\n↩️ In reply to message 4711, not seen here");
  });

  it("as the bot: asked for as the bot, a reply the daemon cannot see; moved to the bot, no reply, and said so", () => {
    const asked = draftIn("pending", { send_as: "bot", reply_to_message_id: 4711 });
    expect(replyTarget(asked)).toEqual({ kind: "reply", message_id: 4711, seen: false });
    expect(shown(asked)).toBe("\n↩️ In reply to message 4711, not seen here");
    const moved = draftIn("pending", { send_as: "owner", sender: BOT, reply_to_message_id: 9, answering: SEEN });
    expect(replyTarget(moved)).toEqual({ kind: "dropped", message_id: 9 });
    expect(shown(moved)).toMatch(
      /^\n↩️ Not as a reply: message 9 is in your own chat with them, where the bot cannot reply\n💬 It answers Anna, /,
    );
    expect(replyTarget(draftIn("pending"))).toEqual({ kind: "none" });
    expect(shown(draftIn("pending"))).toBe("");
  });
});
