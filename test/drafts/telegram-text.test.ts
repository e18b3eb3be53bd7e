import { describe, expect, it } from "vitest";
import { parseDraftPayload } from "../../src/drafts/payload.js";
import { isEmptyForTelegram, trimLikeTelegram } from "../../src/drafts/telegram-text.js";
import { prepareDraftText } from "../../src/desk/draft-text.js";

// Issue 19 doubtful point (d): what Telegram trims from the ends of a text is trimmed before review.

describe("trimLikeTelegram", () => {
  it("drops no-break, ideographic and other Unicode spaces, zero width spaces and a BOM from both ends only", () => {
    expect(trimLikeTelegram("\uFEFF\u00A0\u3000\u2003 \t\r\nHi\u00A0there\u3000!\u202F\u200B\u2028\n")).toBe("Hi\u00A0there\u3000!");
    expect(trimLikeTelegram("\u200DZWJ stays\u200C")).toBe("\u200DZWJ stays\u200C");
  });

  it("counts a text of only invisible characters as empty", () => {
    expect(isEmptyForTelegram(trimLikeTelegram("\u00A0\u200B\uFEFF\u200E\u2800"))).toBe(true);
    expect(isEmptyForTelegram("a")).toBe(false);
  });

  it("is what intake and an edit store, and what the payload's checks measure", () => {
    const prepared = prepareDraftText("\u3000\u00A0Hello\uFEFF", null);
    expect(prepared).toMatchObject({ ok: true, text: "Hello" });
    expect(prepareDraftText("\u00A0\u3000", null)).toMatchObject({ ok: false, reason: "empty" });
    const base = { destination_chat_id: "-1001234567890", drafted_by_role: "Scribe", originating_intent_id: "i" };
    expect(parseDraftPayload({ ...base, draft_text: "\uFEFF\u00A0" })).toEqual({
      ok: false,
      field: "draft_text",
      error: "draft_text: must not be empty",
    });
    // 4096 to send, with invisible padding around it: within Telegram's limit.
    expect(parseDraftPayload({ ...base, draft_text: `\u00A0${"x".repeat(4096)}\u3000` }).ok).toBe(true);
  });
});
