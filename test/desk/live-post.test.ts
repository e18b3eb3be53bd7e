import { describe, expect, it } from "vitest";
import { refusalAnswer } from "../../src/desk/live-post.js";
import { draftIn, T0 } from "../support/drafts.js";

describe("the answer to a note replied after the 👎 that was not passed on", () => {
  const sentBack = draftIn("revise", { revise_undo: { until: new Date(T0).toISOString(), before: "pending" } });

  it("says plainly that the note did not reach the role, why, and what to do instead", () => {
    expect(refusalAnswer("decide", "note_too_late", sentBack)).toBe(
      "⚠️ Your note was NOT passed on to Scribe: the draft was sent back without a note and its ↩️ Undo window is over, " +
        "so a note can no longer be added. Instead, give it when you review its next version (reply to that post).",
    );
    expect(refusalAnswer("decide", "note_too_late", { ...sentBack, revise_undo: null })).toContain(
      "there was no ↩️ Undo window (UNDO_WINDOW is 0)",
    );
    const given = refusalAnswer("decide", "note_already_given", { ...sentBack, revision_note: "shorter" });
    expect(given).toMatch(/^⚠️ Your note was NOT passed on to Scribe: the draft was sent back with a note already .*tap ↩️ Undo/);
    const superseded = refusalAnswer("decide", "note_superseded", { ...sentBack, reason: "superseded", revised_by: "d_later" });
    expect(superseded).toBe(
      "⚠️ Your note was NOT passed on to Scribe: a newer version of this draft replaced it. Reply with your note to the newer version's post.",
    );
  });

  it("a 👎 or 👍 on a revise is answered as before", () => {
    expect(refusalAnswer("decide", "final_state", sentBack)).toBe(
      "⚠️ Not applied: this draft was sent back for revision; its new version comes as a new post.",
    );
  });
});

describe("the answer to an undo with nothing to undo", () => {
  it("says so, naming the draft's status (the explorer found a reply 'undo' on a pending post left unanswered)", () => {
    expect(refusalAnswer("undo", "not_applicable", draftIn("pending"))).toBe("↩️ Nothing to undo: the draft is pending.");
    expect(refusalAnswer("undo", "not_applicable", draftIn("deferred"))).toBe("↩️ Nothing to undo: the draft is deferred.");
    expect(refusalAnswer("undo", "not_applicable", undefined)).toBeNull();
  });
});

describe("the answers of choose any (issue 34)", () => {
  it("a toggle on an approved or final draft, a 👍 with none on, a toggle once some went, a number on a toggles post", () => {
    expect(refusalAnswer("toggle", "already_approved", draftIn("approved"))).toBe(
      "⚠️ Not applied: the draft is approved, so its destinations can no longer be turned on or off (↩️ Undo within the undo window first).",
    );
    expect(refusalAnswer("toggle", "final_state", draftIn("partly_sent"))).toBe(
      "⚠️ Not applied: the draft is partly_sent, so its destinations can no longer be turned on or off.",
    );
    expect(refusalAnswer("decide", "no_destination_on", draftIn("pending"))).toMatch(/Turn on at least one destination/);
    expect(refusalAnswer("toggle", "destinations_fixed", draftIn("halted"))).toMatch(/sent to already.*👍 sends the rest/);
    const any = draftIn("pending", { choose: "any", choices: [] });
    expect(refusalAnswer("decide", "not_a_choice", any)).toMatch(/not to one by number\. Tap a destination/);
  });
});
