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
    expect(post.text).toContain("4 items removed");
    expect(post.text).toContain("(phone ending 888, secret of 20 characters, secret of 40 characters, secret of 10 characters)");
    expect(post.text).not.toContain(secret);
    expect(post.text).not.toContain("s3cretPass");
    live.double.injectReaction({ chatId: OWNER, messageId: answer.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent");
    expect(live.double.messages(GROUP)[0]!.text).toBe(expected);
  });
});
