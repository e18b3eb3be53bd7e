import { describe, expect, it } from "vitest";
import { callbackData, editedReviewText, readCallbackData, reviewKeyboard, reviewPost, statusLine } from "../../src/telegram/review-format.js";
import { draftIn } from "../support/drafts.js";

const opts = { deferForMs: 24 * 3_600_000 };

describe("the review post", () => {
  it("names the role and destination, holds the text exactly, and lists the keys", () => {
    const text = "Hi *all* <b>x</b> [y](z)";
    const post = reviewPost(draftIn("pending", { draft_text: text }), opts);
    expect(post.kind).toBe("single");
    if (post.kind !== "single") return;
    expect(post.text.startsWith("✏️ DRAFT (Scribe) — for chat -1001234567890\n")).toBe(true);
    expect(post.text).toContain(`\n${text}\n`);
    expect(post.text).toContain("👍 send · 👎 revise (or reply with a note) · 😴 defer 24h");
  });

  it("says what redaction removed, or that it is off", () => {
    const removed = reviewPost(draftIn("pending", { redaction: { mode: "redact", removed: { email: 2, phone: 1 } } }), opts);
    expect(removed.kind === "single" && removed.text).toContain("🔒 3 items removed: 2 email, 1 phone");
    const off = reviewPost(draftIn("pending", { redaction: { mode: "off", removed: {} } }), opts);
    expect(off.kind === "single" && off.text).toContain("PII redaction is off");
  });

  it("posts the header apart when a long draft would pass 4096 with it", () => {
    const text = "a".repeat(4096);
    const post = reviewPost(draftIn("pending", { draft_text: text }), opts);
    expect(post).toMatchObject({ kind: "split", text });
    expect(editedReviewText(draftIn("sent", { draft_text: text }), opts)).toBeNull();
  });

  it("has buttons while a decision is awaited and none after", () => {
    expect(reviewKeyboard(draftIn("pending"), opts).inline_keyboard[0]!.map((b) => b.text)).toEqual(["👍 Send", "❌ Revise", "⏳ +24h"]);
    expect(reviewKeyboard(draftIn("sent"), opts).inline_keyboard).toEqual([]);
    expect(editedReviewText(draftIn("sent", { sent_at: "2026-11-30T10:05:00.000Z" }), opts)).toMatch(/^✅ Sent at 2026-11-30 10:05 UTC\./);
  });

  it("reads back only well-formed callback data, at most 64 bytes", () => {
    const data = callbackData("defer", "d_mx2s7dh5_cd0fb7c8b505");
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(readCallbackData(data)).toEqual({ decision: "defer", draftId: "d_mx2s7dh5_cd0fb7c8b505" });
    for (const bad of [undefined, "", "v1:send", "v2:send:d_x", "v1:approve:d_x", "v1:send:d x", "v1:send:d_x\n"]) expect(readCallbackData(bad)).toBeNull();
  });

  it("has a status line for every status", () => {
    for (const s of ["queued", "pending", "deferred", "approved", "sending", "halted", "sent", "revise", "expired", "failed", "outcome_unknown"] as const) {
      expect(statusLine(draftIn(s)).length).toBeGreaterThan(5);
    }
  });
});
