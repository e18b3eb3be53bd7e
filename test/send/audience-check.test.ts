import { describe, expect, it } from "vitest";
import type { Audience } from "../../src/drafts/audience.js";
import { audienceCheck } from "../../src/send/audience-check.js";
import { draftIn, T0 } from "../support/drafts.js";

const five: Audience = {
  chat_id: "-1001234567890",
  kind: "supergroup",
  title: "Five",
  username: null,
  member_count: 5,
  can_post: true,
  problem: null,
  checked_at: new Date(T0).toISOString(),
};
/** Telegram's answer at the send call, as TelegramAudienceResolver.fresh gives it. */
const answering = (now: Audience | null) => audienceCheck({ fresh: async () => now }, 200);
const approved = draftIn("approved", { audience: five });

describe("the send call's audience check", () => {
  it("a group approved at 5 members that has 5,000 now: halted with the growth as reason and the audience as it now is", async () => {
    const now = { ...five, member_count: 5000 };
    const verdict = await answering(now)(approved);
    expect(verdict).toEqual({
      kind: "changed",
      event: { type: "halt", reason: "the destination changed: the group grew from 5 to 5,000 members", audience: now },
      notice:
        "⛔ Not sent: the destination changed: the group grew from 5 to 5,000 members. Nothing went out. Look at who will read it now (the post above), then 👍 again to send.",
    });
  });

  it("a few more members, or fewer, is what the approval covered: it may go", async () => {
    expect(await answering({ ...five, member_count: 9 })(approved)).toBeNull();
    expect(await answering({ ...five, member_count: 2 })(approved)).toBeNull();
  });

  it("no member count at the send where the approving post showed one: unchecked (asked again, then halted)", async () => {
    expect(await answering({ ...five, member_count: null })(approved)).toEqual({ kind: "unchecked" });
    expect(await answering(null)(approved)).toEqual({ kind: "unchecked" });
  });

  it("a private chat is not asked again", async () => {
    const check = audienceCheck(
      {
        fresh: async () => {
          throw new Error("asked");
        },
      },
      200,
    );
    expect(await check(draftIn("approved", { audience: { ...five, kind: "private" } }))).toBeNull();
  });
});
