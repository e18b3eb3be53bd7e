/**
 * Issue 20, point 8, as issue 27 point 2 has it (contract v4, "One message
 * per draft"): a revision note's post says whom it went to, "queued for …"
 * when no delivery of it was acknowledged (no callback, no feed reader),
 * never "told"; and "told" once a feed reader has taken the note's event.
 * An edit of the post each time, never a new message.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../support/daemon-process.js";
import { OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

const postText = (id: number) => live.double.message(OWNER, id)?.text ?? "";

describe("where a revision note went, on its post", () => {
  it("says the note is queued for the roles, not that they were told", async () => {
    await live.start();
    const d = await submitPending(live.daemon, payload("Needs work", { drafted_by_role: "Scribe" }));
    const before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "Margot: shorter please", replyToMessageId: d.review_message_id });
    await eventually(
      () => postText(d.review_message_id).startsWith("✍️ Revise: Margot: shorter please\n"),
      10_000,
      "the post shows the note",
    );
    expect(postText(d.review_message_id)).toMatch(
      /^✍️ Revise: Margot: shorter please\n(↩️ Undo until .*\n)?✉️ Queued for Scribe and Margot\.\n\n/,
    );
    await eventually(async () => (await live.daemon.request("GET", `/drafts/${d.draft_id}`)).body.status === "revise");
    expect(live.double.messages(OWNER).length).toBe(before);
  });

  it("says the roles were told once a feed reader has taken the note's event", async () => {
    await live.start();
    const d = await submitPending(live.daemon, payload("Needs work too", { drafted_by_role: "CoS" }));
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
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "shorter please", replyToMessageId: d.review_message_id });
    await eventually(() => /\n✉️ Told CoS\.\n/.test(postText(d.review_message_id)), 10_000, "the post says CoS was told");
    reading = false;
    await reader;
    expect(postText(d.review_message_id)).toMatch(/^✍️ Revise: shorter please\n/);
    expect(live.double.messages(OWNER).length).toBe(before);
  });
});
