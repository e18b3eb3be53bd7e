import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { GROUP, OWNER, payload, submitPending, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 20, point 6: posts that stop being true. Once final, a post shows the
 * outcome and the draft, and nothing else to act on (no expiry line, no
 * legend, no buttons); an expired post does not count down to "0 s ago"; a
 * used "✅ Yes, send" question loses its button. Through the real daemon and
 * the Bot API double.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const submitPosted = (d: DaemonProcess, text: string) => submitPending(d, payload(text));

const post = (live: LiveDaemonFixture, id: number) => live.double.message(OWNER, id);
const buttons = (live: LiveDaemonFixture, id: number) => (post(live, id)?.reply_markup?.inline_keyboard ?? []).flat() as Rec[];
const LEGEND = "👍 send · 👎 revise";

describe.concurrent("a post once its draft is final", () => {
  it("a sent draft's post shows the outcome and the draft only; the used ✅ question loses its button", async ({ live }) => {
    await live.start({ UNDO_WINDOW: "0", AUDIENCE_CONFIRM_OVER: "0" });
    const d = await submitPosted(live.daemon, "Hi team, the report is out.");
    expect(post(live, d.review_message_id)!.text).toContain("Expires ");
    expect(post(live, d.review_message_id)!.text).toContain(LEGEND);
    expect(buttons(live, d.review_message_id).map((b) => [b.text.split(" ").slice(0, 2).join(" "), b.style])).toEqual([
      ["👍 Send", "success"],
      ["❌ Revise", "danger"],
      ["⏳ +24h", undefined],
      ["✏️ Edit", undefined],
    ]);
    live.double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const question = await eventually(
      () =>
        live.double
          .messages(OWNER)
          .find((m) => m.replyToMessageId === d.review_message_id && /^✅|Send to/.test(buttons(live, m.messageId)[0]?.text ?? "")),
      10_000,
      "the confirmation question",
    );
    const yes = buttons(live, question.messageId)[0]!;
    expect(yes.style).toBe("success");
    live.double.injectCallback({ chatId: OWNER, messageId: question.messageId, userId: OWNER, data: yes.callback_data });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the send");
    await eventually(() => post(live, d.review_message_id)?.text?.startsWith("✅ Sent at"), 10_000, "the post shows the send");
    const final = post(live, d.review_message_id)!.text!;
    expect(final).toContain("\nHi team, the report is out.");
    expect(final).not.toContain("Expires");
    expect(final).not.toContain(LEGEND);
    expect(buttons(live, d.review_message_id)).toEqual([]);
    await eventually(() => buttons(live, question.messageId).length === 0, 10_000, "the used question loses its button");
  });

  it("an expired draft's post says so, without an expiry countdown or the legend", async ({ live }) => {
    await live.start({ DRAFT_TTL: "2s" });
    const d = await submitPosted(live.daemon, "Hi team, nobody decides on this one.");
    await eventually(
      () => post(live, d.review_message_id)?.text?.startsWith("⌛ Expired without a decision."),
      10_000,
      "the post shows the expiry",
    );
    const final = post(live, d.review_message_id)!.text!;
    expect(final).not.toMatch(/Expires|ago|unless decided/);
    expect(final).not.toContain(LEGEND);
    expect(buttons(live, d.review_message_id)).toEqual([]);
  });
});
