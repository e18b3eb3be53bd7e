/**
 * Issue 20, point 8: a revision note is answered "queued for …" when no
 * delivery of it was acknowledged (no callback, no feed reader), never "told".
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../support/daemon-process.js";
import { OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

describe("the answer to a revision note without a callback or feed reader", () => {
  it("says the note is queued for the roles, not that they were told", async () => {
    await live.start();
    const res = await live.daemon.request("POST", "/drafts", payload("Needs work", { drafted_by_role: "Scribe" }));
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "Margot: shorter please",
      replyToMessageId: res.body.review_message_id,
    });
    const answer = await live.reviewChatMessage(before, /^✍️ Sent back for revision/, "the revision answer");
    expect(answer.text).toBe("✍️ Sent back for revision; queued for Scribe and Margot.");
    await eventually(async () => (await live.daemon.request("GET", `/drafts/${res.body.draft_id}`)).body.status === "revise");
  });
});
