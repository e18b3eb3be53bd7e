import { describe, expect, it } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { GROUP, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 20, point 2 (contract v3, "The reviewer's own text is his"): what
 * redaction removed at intake, the post says, with the hint and how to keep it
 * (🔓, or PII_ALLOW); a number the owner puts back with ✏️ stays in version 2 and is sent.
 * Through the real daemon and the Bot API double.
 */

const live = useLiveDaemon();

type Rec = Record<string, any>;

async function get(d: DaemonProcess, id: string): Promise<Rec> {
  return (await d.request("GET", `/drafts/${id}`)).body;
}

describe("the reviewer's own ✏️ text", () => {
  it("is not redacted: the number put back stays in version 2 and is sent as typed", async () => {
    await live.start({ UNDO_WINDOW: "0", TELEGRAM_RATE_SCALE: "20" });
    const res = await live.daemon.request(
      "POST",
      "/drafts",
      payload("Hi Anna, call me on 0412 345 678.", { destination_chat_id: String(GROUP) }),
    );
    const v1 = await eventually(async () => {
      const rec = await get(live.daemon, res.body.draft_id);
      return rec.status === "pending" ? rec : null;
    });
    expect(v1.draft_text).toBe("Hi Anna, call me on [phone].");
    const post = live.double.message(OWNER, v1.review_message_id)!;
    expect(post.text).toContain("🔒 1 item removed: phone ending 678. 🔓 Keep it, or add your own to PII_ALLOW.");
    expect(post.text).not.toContain("✏️ Edit to restore");

    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "✏️ Hi Anna, call me on 0412 345 678.",
      replyToMessageId: v1.review_message_id,
    });
    const v2 = await eventually(
      async () => {
        const rec = await get(live.daemon, v1.draft_id);
        return rec.status === "pending" && rec.text_version === 2 ? rec : null;
      },
      10_000,
      "version 2 posted",
    );
    expect(v2.draft_text).toBe("Hi Anna, call me on 0412 345 678.");
    const v2post = live.double.message(OWNER, v2.review_message_id)!.text!;
    expect(v2post).toContain("\nHi Anna, call me on 0412 345 678.\n");
    expect(v2post).not.toContain("🔒");
    expect(v2post).not.toContain("redaction is off");

    live.double.injectReaction({ chatId: OWNER, messageId: v2.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent");
    expect(live.double.messages(GROUP)[0]!.text).toBe("Hi Anna, call me on 0412 345 678.");
  });
});
