import { describe, expect, it } from "vitest";
import { sendIdentity } from "../../src/drafts/audience.js";
import { transition } from "../../src/drafts/machine.js";
import { approvalProblem } from "../../src/send/approval.js";
import { draftIn, HOUR, OWNER_SENDER, reviewer, T0 } from "../support/drafts.js";

const send = { type: "decide" as const, decision: "send" as const, actor: reviewer("button", null), deferMs: 24 * HOUR };

describe("an approval binds to the sender identity", () => {
  it("names the owner's identity by account, connection and chat, with the reply the send makes; the bot's, and older records', is the bot", () => {
    expect(sendIdentity(draftIn("pending", { sender: OWNER_SENDER, destination_chat_id: "42" }))).toBe("owner:100000001:bc1:42");
    expect(sendIdentity(draftIn("pending", { sender: { kind: "bot", username: "the_bot", why_not_owner: null } }))).toBe("bot");
    expect(sendIdentity(draftIn("pending"))).toBe("bot");
    // The reply is bound too: a reply as the owner or as the bot asked for; none when the bot cannot make it.
    const replying = { reply_to_message_id: 4711, destination_chat_id: "42" };
    expect(sendIdentity(draftIn("pending", { ...replying, sender: OWNER_SENDER, send_as: "owner" }))).toBe("owner:100000001:bc1:42>4711");
    expect(sendIdentity(draftIn("pending", { ...replying, send_as: "bot" }))).toBe("bot>4711");
    const fellBack = { kind: "bot" as const, username: "the_bot", why_not_owner: "no connection" };
    expect(sendIdentity(draftIn("pending", { ...replying, sender: fellBack, send_as: "owner" }))).toBe("bot");
  });

  it("the send call refuses an approval whose account, connection or reply is not the draft's now", () => {
    const draft = draftIn("pending", { sender: OWNER_SENDER, send_as: "owner", reply_to_message_id: 4711 });
    const r = transition(draft, { ...send, identity: sendIdentity(draft) }, T0 + 1000);
    if (!r.ok) throw new Error("not approved");
    expect(r.draft.approval?.identity).toBe(`owner:100000001:bc1:${draft.destination_chat_id}>4711`);
    expect(approvalProblem(r.draft, new Set([100000001]))).toBeNull();
    const otherAccount = { ...r.draft, sender: { ...OWNER_SENDER, owner_user_id: 2002 } };
    expect(approvalProblem(otherAccount, new Set([100000001, 2002]))).toMatch(/another account, connection or reply/);
    const otherConnection = { ...r.draft, sender: { ...OWNER_SENDER, connection_id: "bc_2002" } };
    expect(approvalProblem(otherConnection, new Set([100000001]))).toMatch(/another account, connection or reply/);
    expect(approvalProblem({ ...r.draft, reply_to_message_id: 4712 }, new Set([100000001]))).toMatch(
      /another account, connection or reply/,
    );
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
    const other = `owner:100000001:bc2:${draft.destination_chat_id}`;
    expect(transition(draft, { ...send, identity: other }, T0 + 1000)).toMatchObject({ ok: false, reason: "outdated_identity" });
  });

  it("a 😴 or a 👎 made on a message that showed another identity or audience still counts: it never sends (explorer seed 10167)", () => {
    const draft = draftIn("pending", { sender: OWNER_SENDER, send_as: "owner" });
    const stale = { identity: "bot", audience: "another audience" };
    expect(transition(draft, { ...send, ...stale, decision: "defer" }, T0 + 1000)).toMatchObject({
      ok: true,
      draft: { status: "deferred" },
    });
    const revised = transition(draft, { ...send, ...stale, decision: "revise", note: "not now" }, T0 + 1000);
    expect(revised).toMatchObject({ ok: true, draft: { status: "revise" } });
    // A 👍 on it does not, and the text version binds every decision.
    expect(transition(draft, { ...send, ...stale }, T0 + 1000)).toMatchObject({ ok: false, reason: "outdated_audience" });
    expect(transition(draft, { ...send, decision: "defer", textVersion: 9 }, T0 + 1000)).toMatchObject({
      ok: false,
      reason: "outdated_version",
    });
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
