import { describe, expect, it } from "vitest";
import { eventually } from "../support/daemon-process.js";
import { OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

/** The owner's /status in the review chat; resolves with the daemon's answer. */
async function statusInChat(): Promise<string> {
  const before = live.double.messages(OWNER).length;
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/status" });
  return (await live.reviewChatMessage(before, (text) => text.includes("draft-review ("), "/status answered")).text;
}

describe("/status shows when a reaction last reached the daemon", () => {
  it("none at first (with what to do instead), then the time of the last reaction in the review chat", async () => {
    await live.start();
    expect((await live.daemon.request("GET", "/status")).body.last_reaction_at).toBeNull();
    expect(await statusInChat()).toContain(
      "Last reaction received: none since the start. If 👍 seems to do nothing, Telegram is not delivering reactions here: use the buttons",
    );

    const posted = await live.daemon.request("POST", "/drafts", payload("React to me"));
    expect(posted.status).toBe(201);
    // Any reaction counts, even one that decides nothing (a stranger's, refused and audited).
    live.double.injectReaction({ chatId: OWNER, messageId: posted.body.review_message_id, userId: STRANGER, newEmojis: ["👍"] });
    const at = await eventually(
      async () => (await live.daemon.request("GET", "/status")).body.last_reaction_at as string | null,
      10_000,
      "reaction noted",
    );
    expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
    expect(await statusInChat()).toMatch(/Last reaction received: \d{4}-\d\d-\d\d \d\d:\d\d/);
  });
});
