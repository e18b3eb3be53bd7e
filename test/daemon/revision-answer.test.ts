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

  it("says the roles were told once a feed reader has taken the note's event", async () => {
    await live.start();
    const res = await live.daemon.request("POST", "/drafts", payload("Needs work too", { drafted_by_role: "CoS" }));
    // A reader following GET /events, as the Python client's events(follow=True) does.
    let after = 0;
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const page = await live.daemon.request("GET", `/events?after=${after}`);
        after = page.body.events.at(-1)?.seq ?? after;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await eventually(() => after > 0, 5_000, "the reader has read the draft's first event");
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "shorter please", replyToMessageId: res.body.review_message_id });
    const answer = await live.reviewChatMessage(before, /^✍️ Sent back for revision/, "the revision answer");
    reading = false;
    await reader;
    expect(answer.text).toBe("✍️ Sent back for revision; told CoS.");
  });
});
