import { describe, expect, it } from "vitest";
import { sendIdentity } from "../../src/drafts/audience.js";
import { transition } from "../../src/drafts/machine.js";
import type { Sender } from "../../src/drafts/sender.js";
import { draftIn, HOUR, reviewer, T0 } from "../support/drafts.js";

const OWNER_SENDER: Sender = {
  kind: "owner",
  connection_id: "bc1",
  owner_user_id: 100000001,
  person_name: "Anna",
  last_incoming_at: new Date(T0).toISOString(),
};
const send = { type: "decide" as const, decision: "send" as const, actor: reviewer("button", null), deferMs: 24 * HOUR };

describe("an approval binds to the sender identity", () => {
  it("names the owner's identity by connection and chat; the bot's, and older records', is the bot", () => {
    expect(sendIdentity(draftIn("pending", { sender: OWNER_SENDER, destination_chat_id: "42" }))).toBe("owner:bc1:42");
    expect(sendIdentity(draftIn("pending", { sender: { kind: "bot", username: "the_bot", why_not_owner: null } }))).toBe("bot");
    expect(sendIdentity(draftIn("pending"))).toBe("bot");
  });

  it("records the identity approved, and refuses a 👍 made on a message that showed another identity", () => {
    const draft = draftIn("pending", { sender: OWNER_SENDER, send_as: "owner" });
    const ok = transition(draft, { ...send, identity: sendIdentity(draft) }, T0 + 1000);
    expect(ok.ok && ok.draft.approval?.sender).toBe("owner");
    expect(transition(draft, { ...send, identity: "bot" }, T0 + 1000)).toEqual({
      ok: false,
      reason: "outdated_identity",
      status: "pending",
    });
    // Another connection (the owner reconnected) is another identity too.
    const other = `owner:bc2:${draft.destination_chat_id}`;
    expect(transition(draft, { ...send, identity: other }, T0 + 1000)).toMatchObject({ ok: false, reason: "outdated_identity" });
  });

  it("'send as the bot instead' is a new approval for the bot, only for a halted owner draft", () => {
    const halted = draftIn("halted", { sender: OWNER_SENDER, send_as: "owner", reason: "the 24 h window closed" });
    const r = transition(halted, { ...send, asBot: { username: "the_bot" } }, T0 + 1000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.draft.status).toBe("approved");
    expect(r.draft.sender).toEqual({ kind: "bot", username: "the_bot", why_not_owner: "the 24 h window closed" });
    expect(r.draft.approval).toMatchObject({ sender: "bot", actor: { channel: "button" } });
    expect(r.effects.map((e) => e.type)).toContain("send");
    // Not on a pending owner draft, nor on a bot draft.
    expect(transition(draftIn("pending", { sender: OWNER_SENDER }), { ...send, asBot: { username: null } }, T0).ok).toBe(false);
    expect(transition(draftIn("halted"), { ...send, asBot: { username: null } }, T0).ok).toBe(false);
  });

  it("a send records who it went out as", () => {
    const sending = draftIn("sending", { sender: OWNER_SENDER, approval: { ...draftIn("approved").approval!, sender: "owner" } });
    const r = transition(sending, { type: "send_ok", messageId: 9 }, T0 + 1000);
    expect(r.ok && r.draft.sent_as).toBe("owner");
  });
});
