import { describe, expect, it } from "vitest";
import { auditLines, GROUP, OWNER, payload, STRANGER, submitPending, useLiveDaemon } from "../support/live-fixture.js";
import { eventually } from "../support/daemon-process.js";

/**
 * Issue 32, D9: one update that adds both 👍 and 👎 is two decisions at once.
 * Nothing is applied, as before; now the reviewer is told so on the post,
 * not only the audit log. A stranger's is audited and not answered.
 */

const live = useLiveDaemon();

describe("one reaction update with two decisions", () => {
  it("is refused, audited and answered on the post for a reviewer; a stranger's is only audited", async () => {
    const d = await live.start();
    const draft = await submitPending(d, payload("Two thumbs at once"));
    const before = live.double.messages(OWNER).length;
    const tap = live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍", "👎"] });
    const answer = await live.reviewChatMessage(before, /^⚠️ Not applied: .* added at once are two decisions/, "the answer");
    expect(answer.replyToMessageId).toBe(draft.review_message_id);
    const refused = await eventually(
      async () => (await auditLines(d.harnessDir)).find((l) => l.kind === "decision_refused" && l.update_id === tap.update.update_id),
      10_000,
      "the refusal audited",
    );
    expect(refused.reason).toBe("ambiguous_reaction");
    expect((await d.request("GET", `/drafts/${draft.draft_id}`)).body.status).toBe("pending");
    expect(live.double.messages(GROUP)).toHaveLength(0);

    const stranger = live.double.injectReaction({
      chatId: OWNER,
      messageId: draft.review_message_id,
      userId: STRANGER,
      newEmojis: ["👍", "👎"],
    });
    await eventually(
      async () => (await auditLines(d.harnessDir)).some((l) => l.kind === "decision_refused" && l.update_id === stranger.update.update_id),
      10_000,
      "the stranger's refusal audited",
    );
    expect(live.double.messages(OWNER).filter((m) => m.text.includes("added at once"))).toHaveLength(1);
  }, 60_000);
});
