import { describe, expect, it } from "vitest";
import { eventually } from "../support/daemon-process.js";
import { draftRecord, GROUP, OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 32, B5: when Telegram answers a send slowly, the post no longer keeps
 * its ↩️ Undo until the answer comes (4.5 s with a 4.5 s answer, 61 s when the
 * call hung until its timeout): it drops it once the call is under way
 * ("📤 Sending…"), and shows the outcome when it comes.
 */

const live = useLiveDaemon();

type Rec = Record<string, any>;

const undoOffered = (v: { text?: string; replyMarkup?: unknown } | undefined) =>
  JSON.stringify(v?.replyMarkup ?? {}).includes("v1:undo:") || (v?.text ?? "").includes("↩️ Undo");

describe("a send whose answer is slow", () => {
  it("drops the post's ↩️ Undo while the call is under way, then shows the outcome", async () => {
    const d = await live.start({ UNDO_WINDOW: "2s" });
    const a = await submitPending(d, payload("Hi team, Telegram is slow today."));
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => ((await draftRecord(d, a.draft_id)) as Rec).undo_shown_at != null, 10_000, "the Undo shown");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The send reaches the group at once; Telegram's answer to it waits until the test has looked at the post.
    live.double.answerWhen("sendMessage", () => held);
    const sent = await eventually(() => live.double.messages(GROUP)[0], 10_000, "the message in the group");
    const history = () => live.double.history(OWNER, a.review_message_id);
    const dropped = await eventually(
      () => history().find((v) => v.at >= sent.at && !undoOffered(v)),
      10_000,
      "the post without its Undo while the answer waits",
    );
    expect(dropped.text).toMatch(/^📤 Sending…/);
    // Within the contract's 2 s (v4), though the answer has not come.
    expect(dropped.at - sent.at).toBeLessThan(2_000);
    expect((await draftRecord(d, a.draft_id)).status).toBe("sending");
    release();
    await eventually(() => live.double.message(OWNER, a.review_message_id)?.text?.startsWith("✅ Sent"), 10_000, "the outcome");
    expect(undoOffered(history().at(-1))).toBe(false);
  }, 60_000);
});
