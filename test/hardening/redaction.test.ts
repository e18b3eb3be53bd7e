import { describe, expect, it } from "vitest";
import { eventually } from "../support/daemon-process.js";
import { GROUP, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

// Issue 13 item 6 against the live daemon: PII_ALLOW, hints in the review post, the two slips.

const live = useLiveDaemon();

describe("redaction keeps the owner's own details and says what it removed", () => {
  it("sends the owner's number (PII_ALLOW, another notation), removes the rest, and the post hints at each removal", async () => {
    await live.start({ PII_ALLOW: "+61 412 345 678, owner@tao.example" });
    const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const text = `Call me on 0412 345 678 or mail owner@tao.example. Sam is on 0413 999 888. Staging: access key AKIAIOSFODNN7EXAMPLE, secret ${secret}; cache redis://:s3cretPass@cache.internal:6379`;
    const answer = (await live.daemon.request("POST", "/drafts", payload(text))).body;
    const post = await eventually(() => live.double.messages(OWNER).find((m) => m.messageId === answer.review_message_id));
    const expected =
      "Call me on 0412 345 678 or mail owner@tao.example. Sam is on [phone]. Staging: access key [secret], secret [secret]; cache redis://:[secret]@cache.internal:6379";
    expect(post.text).toContain(expected);
    expect(post.text).toContain(
      "🔒 4 items removed: phone ending 888, secret of 20 characters, secret of 40 characters, secret of 10 characters. 🔓 Keep them, or add your own to PII_ALLOW.",
    );
    expect(post.text).not.toContain(secret);
    expect(post.text).not.toContain("s3cretPass");
    live.double.injectReaction({ chatId: OWNER, messageId: answer.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent");
    expect(live.double.messages(GROUP)[0]!.text).toBe(expected);
  });

  // Issue 19 row 11: PII_ALLOW matched by digit suffix, so another country's number with the same ending was kept.
  it("removes a number of another country whose digits end like the owner's (PII_ALLOW matches country and number)", async () => {
    await live.start({ PII_ALLOW: "+61 412 345 678" });
    const text = "Mine: +61412345678. Not mine: +1 412 345 678 and +44 412 345 678.";
    const answer = (await live.daemon.request("POST", "/drafts", payload(text))).body;
    const post = await eventually(() => live.double.messages(OWNER).find((m) => m.messageId === answer.review_message_id));
    expect(post.text).toContain("Mine: +61412345678. Not mine: [phone] and [phone].");
    expect(post.text).not.toContain("+1 412 345 678");
    expect((await live.daemon.request("GET", `/drafts/${answer.draft_id}`)).body.draft_text).toBe(
      "Mine: +61412345678. Not mine: [phone] and [phone].",
    );
  });
});
