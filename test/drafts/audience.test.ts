import { describe, expect, it } from "vitest";
import {
  audienceChange,
  audienceUnknown,
  memberCountLost,
  memberGrowth,
  needsConfirmation,
  type Audience,
  readerGrowth,
} from "../../src/drafts/audience.js";
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

  it("names what changed since the approval: public, another chat, no right to post; nothing for a count within what was approved", () => {
    expect(audienceChange(group, { ...group, member_count: 402 }, 200)).toBeNull();
    expect(audienceChange(group, { ...group, member_count: 150 }, 200)).toBeNull();
    expect(audienceChange(group, { ...group, username: "team" })).toBe("the chat became public (@team)");
    expect(audienceChange(group, { ...group, chat_id: "-100999" })).toBe("the destination is now another chat (id -100123 → -100999)");
    expect(audienceChange(group, { ...group, can_post: false, problem: "the bot is restricted here and may not send messages" })).toBe(
      "the bot can no longer post there: the bot is restricted here and may not send messages",
    );
  });

  it("a count that grew past what the approval covers is a change: over AUDIENCE_CONFIRM_OVER unconfirmed, or beyond twice the count shown", () => {
    const five = { ...group, member_count: 5 };
    // Approved at 5 members without the tap; at the send 5,000 would need it.
    expect(audienceChange(five, { ...group, member_count: 5000 }, 200)).toBe("the group grew from 5 to 5,000 members");
    expect(memberGrowth(five, { ...group, member_count: 201 }, 200)).toBe("the group grew from 5 to 201 members");
    expect(memberGrowth({ ...group, member_count: 150 }, { ...group, member_count: 201 }, 200)).toBe(
      "the group grew from 150 to 201 members",
    );
    // Within the tap's threshold, a few more members are what the approval covered; many more are not.
    expect(memberGrowth(five, { ...group, member_count: 104 }, 200)).toBeNull();
    expect(memberGrowth(five, { ...group, member_count: 105 }, 200)).toBe("the group grew from 5 to 105 members");
    expect(memberGrowth(five, { ...group, member_count: 5000 }, null)).toBe("the group grew from 5 to 5,000 members");
    // Confirmed for 201: up to twice that is covered, more is not.
    expect(memberGrowth(group, { ...group, member_count: 402 }, 200)).toBeNull();
    expect(memberGrowth(group, { ...group, member_count: 403 }, 200)).toBe("the group grew from 201 to 403 members");
    expect(memberGrowth({ ...group, kind: "channel", member_count: 1234 }, { ...group, kind: "channel", member_count: 40_000 }, 200)).toBe(
      "the channel grew from 1,234 to 40,000 members",
    );
    // Fewer members, or an approval confirmed without a count (Telegram did not tell): nothing to compare.
    expect(memberGrowth(group, { ...group, member_count: 3 }, 200)).toBeNull();
    expect(memberGrowth(unanswered, { ...group, member_count: 5000 }, 200)).toBeNull();
    expect(memberGrowth(null, { ...group, member_count: 5000 }, 200)).toBeNull();
    // Another change is named first.
    expect(audienceChange(five, { ...group, member_count: 5000, username: "team" }, 200)).toBe("the chat became public (@team)");
  });

  it("a count the approving message showed but the send call cannot read is missing evidence", () => {
    expect(memberCountLost(group, { ...group, member_count: null })).toBe(true);
    expect(memberCountLost(group, group)).toBe(false);
    expect(memberCountLost(unanswered, { ...group, member_count: null })).toBe(false);
    expect(memberCountLost(group, unanswered)).toBe(false);
    expect(memberCountLost({ ...group, kind: "private" }, { ...group, kind: "private", member_count: null })).toBe(false);
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

describe("readerGrowth (Linear's and Slack's reader counts at the send)", () => {
  it("holds the approval to the same rule as Telegram's members: past AUDIENCE_CONFIRM_OVER, or beyond twice and 100 more", () => {
    expect(readerGrowth(14, 15, 50)).toBeNull();
    expect(readerGrowth(14, 60, 50)).toBe("it grew from 14 to 60 readers");
    expect(readerGrowth(60, 90, 50)).toBeNull();
    expect(readerGrowth(200, 450, null)).toBe("it grew from 200 to 450 readers");
    expect(readerGrowth(200, 350, null)).toBeNull();
    expect(readerGrowth(20, 10, 5)).toBeNull();
    expect(readerGrowth(null, 900, 5)).toBeNull();
  });
});
