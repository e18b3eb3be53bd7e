import { describe, expect, it } from "vitest";
import { audienceChange, audienceUnknown, needsConfirmation, type Audience } from "../../src/drafts/audience.js";
import { transition } from "../../src/drafts/machine.js";
import { draftIn, HOUR, reviewer, T0 } from "../support/drafts.js";

const group: Audience = {
  chat_id: "-100123",
  kind: "supergroup",
  title: "Team",
  username: null,
  member_count: 201,
  can_post: true,
  problem: null,
  checked_at: new Date(T0).toISOString(),
};
const send = (confirmed: boolean) => ({
  type: "decide" as const,
  decision: "send" as const,
  actor: reviewer(),
  deferMs: 24 * HOUR,
  confirmOver: 200,
  confirmed,
});

/** What the resolver keeps when Telegram did not answer getChat: the destination as given, and why. */
const unanswered: Audience = {
  ...group,
  kind: "unknown",
  title: null,
  member_count: null,
  can_post: null,
  problem: "audience unknown (Telegram did not answer)",
};
/** Test mode's audience: never asked. */
const offline: Audience = { ...unanswered, title: "unknown audience (test mode)", problem: null };

describe("the audience rules", () => {
  it("a 👍 for more than AUDIENCE_CONFIRM_OVER members needs the extra tap; a person or a small group does not", () => {
    expect(needsConfirmation(group, 200)).toBe(true);
    expect(needsConfirmation({ ...group, member_count: 200 }, 200)).toBe(false);
    expect(needsConfirmation({ ...group, kind: "private" }, 0)).toBe(false);
    expect(needsConfirmation(null, 0)).toBe(false);
    const d = draftIn("pending", { audience: group });
    expect(transition(d, send(false), T0)).toMatchObject({ ok: false, reason: "needs_confirmation" });
    expect(transition(d, send(true), T0)).toMatchObject({ ok: true, draft: { status: "approved" } });
  });

  it("names what changed since the approval: public, another chat, no right to post; nothing for a new member count", () => {
    expect(audienceChange(group, { ...group, member_count: 5000 })).toBeNull();
    expect(audienceChange(group, { ...group, username: "team" })).toBe("the chat became public (@team)");
    expect(audienceChange(group, { ...group, chat_id: "-100999" })).toBe("the destination is now another chat (id -100123 → -100999)");
    expect(audienceChange(group, { ...group, can_post: false, problem: "the bot is restricted here and may not send messages" })).toBe(
      "the bot can no longer post there: the bot is restricted here and may not send messages",
    );
  });

  it("an audience Telegram did not tell needs the extra tap, as a large one does (fails closed)", () => {
    expect(audienceUnknown(unanswered)).toBe(true);
    expect(audienceUnknown({ ...group, member_count: null })).toBe(true);
    expect(audienceUnknown({ ...group, kind: "channel", username: "news", member_count: null })).toBe(true);
    expect(audienceUnknown(group)).toBe(false);
    expect(audienceUnknown({ ...group, kind: "private", member_count: null })).toBe(false);
    expect(audienceUnknown(offline)).toBe(false);

    expect(needsConfirmation(unanswered, 200)).toBe(true);
    expect(needsConfirmation({ ...group, member_count: null }, 200)).toBe(true);
    expect(needsConfirmation({ ...group, member_count: 5 }, 200)).toBe(false);
    expect(needsConfirmation(offline, 200)).toBe(false);
    // AUDIENCE_CONFIRM_OVER off: no extra tap for any audience.
    expect(needsConfirmation(unanswered, null)).toBe(false);
    const d = draftIn("pending", { audience: { ...group, member_count: null } });
    expect(transition(d, send(false), T0)).toMatchObject({ ok: false, reason: "needs_confirmation" });
    expect(transition(d, send(true), T0)).toMatchObject({ ok: true, draft: { status: "approved" } });
  });

  it("an audience approved while unknown is held to the change checks", () => {
    expect(audienceChange(unanswered, { ...group, username: "team" })).toBe("the chat is public (@team)");
    expect(audienceChange(unanswered, { ...group, chat_id: "-100999" })).toBe("the destination is now another chat (id -100123 → -100999)");
    expect(audienceChange(unanswered, { ...group, can_post: false, problem: "the bot is not a member of this supergroup: add it" })).toBe(
      "the bot can no longer post there: the bot is not a member of this supergroup: add it",
    );
    // A private group as it now is, with any member count: what the confirmed tap allowed.
    expect(audienceChange(unanswered, { ...group, member_count: 5000 })).toBeNull();
    // An @username destination left unresolved keeps the name, not an id: no "another chat".
    expect(audienceChange({ ...unanswered, chat_id: "@team" }, group)).toBeNull();
    expect(audienceChange(offline, offline)).toBeNull();
  });

  it("a halt with the audience found at the send call keeps it, and a migrated group's new id", () => {
    const d = draftIn("approved", { audience: group });
    const r = transition(
      d,
      { type: "halt", reason: "moved", audience: { ...group, chat_id: "-100999" }, destinationChatId: "-100999" },
      T0,
    );
    expect(r).toMatchObject({
      ok: true,
      draft: { status: "halted", destination_chat_id: "-100999", audience: { chat_id: "-100999" }, approval: null },
    });
  });
});
