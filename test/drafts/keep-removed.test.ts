import { describe, expect, it } from "vitest";
import { hasRemovedItems, keepsOriginal, keptRedaction, needsRemovedItems, originalDone } from "../../src/drafts/keep-removed.js";
import { draftIn, T0 } from "../support/drafts.js";

// Issue 25 point 6: when the originals of a redacted draft are offered, kept, and dropped.

const redaction = { mode: "redact" as const, removed: { phone: 1 }, hints: ["phone ending 678"] };

describe("keep the removed items", () => {
  it("applies only to the text redaction made: version 1 with something removed", () => {
    expect(hasRemovedItems(draftIn("pending", { redaction }))).toBe(true);
    expect(hasRemovedItems(draftIn("pending", { redaction: { mode: "redact", removed: {} } }))).toBe(false);
    expect(hasRemovedItems(draftIn("pending", { redaction: { mode: "off", removed: {} } }))).toBe(false);
    expect(hasRemovedItems(draftIn("pending", { redaction, text_version: 2 }))).toBe(false);
    expect(hasRemovedItems(draftIn("pending", { redaction: null }))).toBe(false);
  });

  it("keeps the originals while the draft may still use them: not final, or a revise that can still be undone", () => {
    expect(needsRemovedItems(draftIn("approved", { redaction }), T0)).toBe(true);
    expect(needsRemovedItems(draftIn("sent", { redaction }), T0)).toBe(false);
    const until = new Date(T0 + 10_000).toISOString();
    const revised = draftIn("revise", { redaction, revise_undo: { until, before: "pending" } });
    expect(needsRemovedItems(revised, T0)).toBe(true);
    expect(needsRemovedItems(revised, T0 + 10_000)).toBe(false);
    expect(needsRemovedItems({ ...revised, revised_by: "d_later" }, T0)).toBe(false);
    expect(originalDone(draftIn("pending", { redaction }), draftIn("sent", { redaction }), T0)).toBe(true);
    expect(originalDone(draftIn("pending", { redaction }), draftIn("queued", { redaction, text_version: 2 }), T0)).toBe(true);
    expect(originalDone(draftIn("pending", { redaction }), draftIn("approved", { redaction }), T0)).toBe(false);
  });

  it("sweeps what no draft in the store needs; test mode leaves a live draft's alone", () => {
    expect(keepsOriginal(undefined, T0, false)).toBe(false);
    expect(keepsOriginal(draftIn("expired", { redaction }), T0, false)).toBe(false);
    expect(keepsOriginal(draftIn("expired", { redaction }), T0, true)).toBe(true);
    expect(keepsOriginal(draftIn("expired", { redaction, test_mode: true }), T0, true)).toBe(false);
  });

  it("says the kept version is the reviewer's, restored, with the hints of what came back", () => {
    expect(keptRedaction(redaction)).toEqual({ mode: "reviewer", removed: {}, restored: true, hints: ["phone ending 678"] });
    expect(keptRedaction(null)).toEqual({ mode: "reviewer", removed: {}, restored: true });
  });
});
