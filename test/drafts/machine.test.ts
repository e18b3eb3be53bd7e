import { describe, expect, it } from "vitest";
import type { DraftEvent } from "../../src/drafts/events.js";
import { expiryDue, SEND_START_GRACE_MS, transition, TRANSITIONS } from "../../src/drafts/machine.js";
import { UNDO_OVER_EDIT_MS } from "../../src/drafts/undo-window.js";
import { draftRecordSchema, type DraftRecord } from "../../src/drafts/record.js";
import { FINAL_STATUSES, STATUSES, type DraftStatus } from "../../src/drafts/status.js";
import { draftIn, EVENTS, HOUR, reviewer, T0 } from "../support/drafts.js";

/** What the table must do for each (status, event) pair: the next status, or the refusal. */
// `revised` applies everywhere: awaiting a decision -> revise (superseded); elsewhere only `revised_by` is recorded.
// `undo` on an approved draft without a running UNDO_WINDOW is refused; see "undo" below for the window.
const EXPECTED: Record<DraftStatus, Partial<Record<DraftEvent["type"], DraftStatus | `refused:${string}`>>> = {
  queued: {
    posted: "pending",
    expire: "expired",
    decide: "refused:not_posted",
    edit: "refused:not_posted",
    toggle: "refused:not_posted",
    revised: "revise",
  },
  // `toggle` applies only to a draft sent to any of several destinations (see fan-out.test.ts).
  pending: { decide: "approved", expire: "expired", edit: "queued", revised: "revise" },
  deferred: { decide: "approved", expire: "expired", edit: "queued", revised: "revise" },
  halted: { decide: "approved", expire: "expired", edit: "queued", revised: "revise" },
  approved: {
    expire: "expired",
    halt: "halted",
    send_intent: "sending",
    decide: "refused:already_approved",
    edit: "refused:already_approved",
    toggle: "refused:already_approved",
    undo: "refused:undo_closed",
    revised: "approved",
  },
  sending: {
    send_ok: "sent",
    send_failed: "failed",
    send_unknown: "outcome_unknown",
    send_retry: "approved",
    halt: "halted",
    decide: "refused:already_approved",
    edit: "refused:already_approved",
    toggle: "refused:already_approved",
    undo: "refused:undo_closed",
    revised: "sending",
  },
  sent: { revised: "sent" },
  // A revise without an undo window running (see "undo of a revise" below).
  revise: { revised: "revise", undo: "refused:undo_closed" },
  expired: { revised: "expired" },
  failed: { revised: "failed" },
  outcome_unknown: { revised: "outcome_unknown" },
  partly_sent: { revised: "partly_sent" },
};

const AFTER_EXPIRY = T0 + 25 * HOUR;
const BEFORE_EXPIRY = T0 + HOUR;

describe("transition: every (status, event) pair", () => {
  for (const status of STATUSES) {
    for (const [type, event] of Object.entries(EVENTS) as [DraftEvent["type"], DraftEvent][]) {
      const expected = EXPECTED[status][type] ?? (FINAL_STATUSES.has(status) ? "refused:final_state" : "refused:not_applicable");
      it(`${status} + ${type} -> ${expected}`, () => {
        const draft = draftIn(status);
        const now = type === "expire" ? AFTER_EXPIRY : BEFORE_EXPIRY;
        const result = transition(draft, event, now);
        if (expected.startsWith("refused:")) {
          expect(result).toEqual({ ok: false, reason: expected.slice("refused:".length), status });
          return;
        }
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.draft.status).toBe(expected);
        expect(result.draft.version).toBe(draft.version + 1);
        expect(result.draft.updated_at).toBe(new Date(now).toISOString());
        // Every next state is a valid record, and survives a JSON round trip unchanged.
        expect(draftRecordSchema.parse(JSON.parse(JSON.stringify(result.draft)))).toEqual(result.draft);
      });
    }
  }

  it("lists no final status in the table, except for `revised`, which never changes a final status, and the undo and late note of a revise", () => {
    for (const [type, handlers] of Object.entries(TRANSITIONS)) {
      if (type === "revised") continue;
      for (const status of Object.keys(handlers)) {
        if ((type === "undo" || type === "decide") && status === "revise") continue;
        expect(FINAL_STATUSES.has(status as DraftStatus)).toBe(false);
      }
    }
    for (const status of FINAL_STATUSES) {
      const result = transition(draftIn(status), EVENTS.revised, T0);
      expect(result).toMatchObject({ ok: true, draft: { status, revised_by: "d_later" }, effects: [] });
    }
  });

  it("does not change the draft it was given (pure)", () => {
    const draft = draftIn("pending");
    const copy = structuredClone(draft);
    transition(draft, EVENTS.decide, T0);
    expect(draft).toEqual(copy);
  });
});

describe("transition: details", () => {
  it("a send decision records the approval of exactly this text and asks for a send", () => {
    const result = transition(draftIn("pending"), EVENTS.decide, T0 + HOUR);
    expect(result).toMatchObject({
      ok: true,
      draft: { status: "approved", approval: { actor: reviewer(), text_sha256: draftIn("pending").text_sha256 } },
      effects: [{ type: "send", draftId: "d_test" }],
    });
  });

  it("revise keeps the note", () => {
    const event: DraftEvent = { type: "decide", decision: "revise", actor: reviewer("reply", null), note: "shorter please", deferMs: 0 };
    expect(transition(draftIn("pending"), event, T0)).toMatchObject({
      ok: true,
      draft: { status: "revise", revision_note: "shorter please" },
    });
  });

  it("defer moves expires_at by DEFER_FOR and re-arms the expiry", () => {
    const event: DraftEvent = { type: "decide", decision: "defer", actor: reviewer("reaction", "😴"), deferMs: 24 * HOUR };
    const result = transition(draftIn("pending"), event, T0 + HOUR);
    const at = T0 + 48 * HOUR;
    expect(result).toMatchObject({
      ok: true,
      draft: { status: "deferred", expires_at: new Date(at).toISOString() },
      effects: [{ type: "arm_expiry", at }, { type: "show_status" }],
    });
  });

  it("expire before expires_at is refused as not due", () => {
    expect(transition(draftIn("pending"), EVENTS.expire, T0 + HOUR)).toEqual({ ok: false, reason: "not_due", status: "pending" });
  });

  it("a halt clears the approval, so only a new approval can send", () => {
    const result = transition(draftIn("approved"), EVENTS.halt, T0);
    expect(result).toMatchObject({ ok: true, draft: { status: "halted", approval: null, reason: "kill switch" } });
    if (result.ok) expect(transition(result.draft, EVENTS.send_intent, T0)).toMatchObject({ ok: false });
  });

  it("a send intent needs an approval of the current text", () => {
    const noApproval = draftIn("approved", { approval: null });
    expect(transition(noApproval, EVENTS.send_intent, T0)).toEqual({ ok: false, reason: "no_approval", status: "approved" });
    const changed = draftIn("approved");
    const tampered = { ...changed, text_sha256: "other" };
    expect(transition(tampered, EVENTS.send_intent, T0)).toEqual({ ok: false, reason: "text_changed", status: "approved" });
  });

  it("past expires_at, a decision or a send intent is refused even before the expiry is recorded", () => {
    expect(transition(draftIn("pending"), EVENTS.decide, AFTER_EXPIRY)).toEqual({ ok: false, reason: "expired", status: "pending" });
    expect(transition(draftIn("approved"), EVENTS.send_intent, AFTER_EXPIRY)).toEqual({ ok: false, reason: "expired", status: "approved" });
  });

  it("an unknown outcome tells the reviewers and never asks for a send", () => {
    const result = transition(draftIn("sending"), EVENTS.send_unknown, T0);
    expect(result.ok && result.effects.map((e) => e.type)).toEqual(["show_status", "notify"]);
  });

  it("a send to retry later is approved again and its post shown (no ↩️ Undo by then), never sent from here", () => {
    const result = transition(draftIn("sending"), EVENTS.send_retry, T0);
    expect(result).toMatchObject({ ok: true, draft: { status: "approved", reason: "429" } });
    expect(result.ok && result.effects).toEqual([{ type: "show_status", draftId: "d_test" }]);
  });
});

/** `draft` once Telegram accepted the edit showing its ↩️ Undo at `at` (the message showing `sendAt`, if given). */
function showUndo(draft: DraftRecord, at: number, sendAt: number | null = null): DraftRecord {
  const shown = transition(draft, { type: "undo_shown", at, version: draft.version, sendAt }, at);
  if (!shown.ok) throw new Error(`undo_shown refused: ${shown.reason}`);
  return shown.draft;
}

describe("transition: edit, undo, revises (contract v2)", () => {
  const UNDO = 10_000;
  const approve = (undoMs: number, status: DraftStatus = "pending", now = T0 + HOUR): DraftEvent & { type: "decide" } => ({
    ...(EVENTS.decide as DraftEvent & { type: "decide" }),
    undoMs,
  });

  it("with UNDO_WINDOW an approval records a provisional send_after and shows the countdown; no send until the Undo is shown", () => {
    const result = transition(draftIn("pending"), approve(UNDO), T0 + HOUR);
    expect(result).toMatchObject({
      ok: true,
      draft: {
        status: "approved",
        send_after: new Date(T0 + HOUR + UNDO).toISOString(),
        undo_shown_at: null,
        approval: { before: "pending", text_version: 1 },
      },
    });
    // The send path gets the draft from `undo_shown` (contract v4: the window counts from what the chat shows).
    expect(result.ok && result.effects).toEqual([{ type: "show_status", draftId: "d_test" }]);
  });

  it("with UNDO_WINDOW 0 an approval sends at once and shows nothing until the outcome", () => {
    const result = transition(draftIn("pending"), approve(0), T0 + HOUR);
    expect(result).toMatchObject({ ok: true, draft: { status: "approved", send_after: null }, effects: [{ type: "send" }] });
  });

  it("no send intent before the Undo is shown, nor before send_after; one at send_after", () => {
    const approved = transition(draftIn("deferred"), approve(UNDO), T0 + HOUR);
    if (!approved.ok) throw new Error("not approved");
    const refused = (reason: string) => ({ ok: false, reason, status: "approved" });
    // Not shown yet: not even past the provisional send_after.
    expect(transition(approved.draft, EVENTS.send_intent, T0 + HOUR + 10 * UNDO)).toEqual(refused("undo_not_shown"));
    const shownAt = T0 + HOUR + 7_200;
    const shown = showUndo(approved.draft, shownAt);
    expect(transition(shown, EVENTS.send_intent, shownAt + UNDO - 1)).toEqual(refused("not_due"));
    expect(transition(shown, EVENTS.send_intent, shownAt + UNDO)).toMatchObject({ ok: true, draft: { status: "sending" } });
  });

  for (const before of ["pending", "deferred", "halted"] as const) {
    it(`undo within the window returns a draft approved from ${before} to ${before}, without approval`, () => {
      const approved = transition(draftIn(before), approve(UNDO), T0 + HOUR);
      if (!approved.ok) throw new Error("not approved");
      const undone = transition(approved.draft, EVENTS.undo, T0 + HOUR + UNDO - 1);
      expect(undone).toMatchObject({
        ok: true,
        draft: { status: before, approval: null, send_after: null, decided_by: { emoji: "👍" } },
        effects: [{ type: "show_status" }],
      });
    });
  }

  it("undo at or after send_after (of an Undo shown) is refused as undo_closed", () => {
    const approved = transition(draftIn("pending"), approve(UNDO), T0 + HOUR);
    if (!approved.ok) throw new Error("not approved");
    const shown = showUndo(approved.draft, T0 + HOUR);
    expect(transition(shown, EVENTS.undo, T0 + HOUR + UNDO)).toEqual({ ok: false, reason: "undo_closed", status: "approved" });
  });

  it("an undo that Telegram dated inside the window counts when it arrives after it (queued while the daemon was down)", () => {
    const approved = transition(draftIn("pending"), approve(UNDO), T0 + HOUR);
    if (!approved.ok) throw new Error("not approved");
    const shown = showUndo(approved.draft, T0 + HOUR);
    const late = T0 + HOUR + 5 * UNDO;
    const dated = (actedAt: number | null) => ({ ...EVENTS.undo, actedAt }) as DraftEvent;
    expect(transition(shown, dated(T0 + HOUR + UNDO - 1), late)).toMatchObject({ ok: true, draft: { status: "pending" } });
    expect(transition(shown, dated(T0 + HOUR + UNDO), late)).toEqual({ ok: false, reason: "undo_closed", status: "approved" });
    // A tap Telegram does not date, that waited while the daemon was down: it may have been in time, and nothing was sent.
    expect(transition(shown, dated(null), late)).toMatchObject({ ok: true, draft: { status: "pending" } });
    // Once the send began, no date brings it back.
    expect(transition({ ...shown, status: "sending" }, dated(T0 + HOUR), late)).toMatchObject({ ok: false });
  });

  it("an approval given before expires_at whose window ends after it waits out the window, then has a minute to start", () => {
    const expiresAt = T0 + 24 * HOUR;
    const approvedAt = expiresAt - UNDO / 2;
    const approved = transition(draftIn("pending"), approve(UNDO), approvedAt);
    if (!approved.ok) throw new Error("not approved");
    const due = approvedAt + UNDO + SEND_START_GRACE_MS;
    expect(expiryDue(approved.draft)).toBe(due);
    expect(approved.effects).toContainEqual({ type: "arm_expiry", draftId: "d_test", at: due });
    const shown = showUndo(approved.draft, approvedAt);
    expect(transition(shown, EVENTS.expire, expiresAt + 1)).toEqual({ ok: false, reason: "not_due", status: "approved" });
    expect(transition(shown, EVENTS.send_intent, approvedAt + UNDO)).toMatchObject({ ok: true, draft: { status: "sending" } });
    expect(transition(shown, EVENTS.send_intent, due)).toEqual({ ok: false, reason: "expired", status: "approved" });
    expect(transition(shown, EVENTS.expire, due)).toMatchObject({ ok: true, draft: { status: "expired" } });
    // Undone past expires_at: it awaits no decision any more, and expires at once.
    const undone = transition(approved.draft, EVENTS.undo, expiresAt + 1);
    expect(undone).toMatchObject({ ok: true, draft: { status: "pending" } });
    expect(undone.ok && undone.effects).toContainEqual({ type: "arm_expiry", draftId: "d_test", at: expiresAt });
  });

  it("a halt inside the window clears send_after and the approval", () => {
    const approved = transition(draftIn("pending"), approve(UNDO), T0 + HOUR);
    if (!approved.ok) throw new Error("not approved");
    expect(transition(approved.draft, EVENTS.halt, T0 + HOUR + 1)).toMatchObject({
      ok: true,
      draft: { status: "halted", approval: null, send_after: null },
    });
  });

  it("an edit makes the next text version, keeps the original, supersedes the post and posts again", () => {
    const result = transition(draftIn("pending", { superseded_posts: [7] }), EVENTS.edit, T0 + HOUR);
    expect(result).toMatchObject({
      ok: true,
      draft: {
        status: "queued",
        draft_text: "Hi Anna, see you Friday at 10.",
        text_version: 2,
        original_text: "Hi Anna, see you Thursday at 10.",
        previous_text: "Hi Anna, see you Thursday at 10.",
        review_message_id: null,
        superseded_posts: [7, 42],
        approval: null,
      },
      effects: [{ type: "supersede_post", reviewMessageId: 42 }, { type: "post_review" }],
    });
    if (!result.ok) return;
    // A second edit keeps the first original text.
    const again = transition(
      { ...result.draft, status: "pending", review_message_id: 43 },
      { ...EVENTS.edit, text: "Bye", textSha256: "x" } as DraftEvent,
      T0 + HOUR,
    );
    expect(again).toMatchObject({
      ok: true,
      draft: { text_version: 3, original_text: "Hi Anna, see you Thursday at 10.", previous_text: "Hi Anna, see you Friday at 10." },
    });
  });

  it("an edit to the same text, of another version, or past expiry is refused", () => {
    const same = { ...EVENTS.edit, textSha256: draftIn("pending").text_sha256 } as DraftEvent;
    expect(transition(draftIn("pending"), same, T0)).toEqual({ ok: false, reason: "text_unchanged", status: "pending" });
    expect(transition(draftIn("pending"), { ...EVENTS.edit, textVersion: 2 } as DraftEvent, T0)).toEqual({
      ok: false,
      reason: "outdated_version",
      status: "pending",
    });
    expect(transition(draftIn("pending"), EVENTS.edit, T0 + 25 * HOUR)).toEqual({ ok: false, reason: "expired", status: "pending" });
  });

  it("a decision on another text version is refused as outdated", () => {
    const event = { ...EVENTS.decide, textVersion: 1 } as DraftEvent;
    expect(transition(draftIn("pending", { text_version: 2 }), event, T0)).toEqual({
      ok: false,
      reason: "outdated_version",
      status: "pending",
    });
    expect(transition(draftIn("pending", { text_version: 1 }), event, T0)).toMatchObject({ ok: true });
  });

  it("revised: a draft awaiting a decision becomes revise (superseded) and its post shows it", () => {
    expect(transition(draftIn("deferred"), EVENTS.revised, T0)).toMatchObject({
      ok: true,
      draft: { status: "revise", reason: "superseded", revised_by: "d_later" },
      effects: [{ type: "show_status" }],
    });
  });
});

describe("transition: a change of mind on an approved draft (👎 or 😴 inside its undo window)", () => {
  const UNDO = 10_000;
  const TAP = T0 + HOUR;
  const decide = (decision: "send" | "revise" | "defer", extra: Partial<DraftEvent & { type: "decide" }> = {}) =>
    ({ ...(EVENTS.decide as DraftEvent & { type: "decide" }), decision, undoMs: UNDO, deferMs: HOUR, ...extra }) as DraftEvent;
  const approved = (): DraftRecord => {
    const result = transition(draftIn("pending"), decide("send"), TAP);
    if (!result.ok) throw new Error("not approved");
    return showUndo(result.draft, TAP + 1_000);
  };

  it("a 👎 inside the window undoes the approval and sends the draft back, in one transition", () => {
    const d = approved();
    const result = transition(d, decide("revise", { note: "shorter" }), TAP + 5_000);
    expect(result).toMatchObject({
      ok: true,
      draft: { status: "revise", approval: null, send_after: null, revision_note: "shorter", version: d.version + 1 },
    });
    expect(result.ok && result.effects).toContainEqual({ type: "show_status", draftId: "d_test" });
    expect(result.ok && result.effects.some((e) => e.type === "send")).toBe(false);
  });

  it("a 😴 inside the window undoes the approval and defers the draft", () => {
    const result = transition(approved(), decide("defer"), TAP + 5_000);
    expect(result).toMatchObject({ ok: true, draft: { status: "deferred", approval: null, send_after: null } });
    expect(result.ok && result.effects).toContainEqual(expect.objectContaining({ type: "arm_expiry" }));
  });

  it("judged by when he acted, as an undo: dated inside the window it counts; after it, or once sending, it is refused", () => {
    const d = approved();
    const end = TAP + 1_000 + UNDO;
    expect(transition(d, decide("revise", { actedAt: end - 1 }), end + 60_000)).toMatchObject({ ok: true, draft: { status: "revise" } });
    expect(transition(d, decide("revise", { actedAt: end }), end)).toEqual({ ok: false, reason: "already_approved", status: "approved" });
    expect(transition({ ...d, status: "sending" }, decide("revise"), TAP + 2_000)).toEqual({
      ok: false,
      reason: "already_approved",
      status: "sending",
    });
  });

  it("inside a window that runs past expires_at, the change of mind stands whole: the 👎 with its note, the 😴 from the deadline", () => {
    const expiresAt = Date.parse(draftIn("pending").expires_at);
    const result = transition(draftIn("pending"), decide("send"), expiresAt - 2_000);
    if (!result.ok) throw new Error("not approved");
    const late = showUndo(result.draft, expiresAt - 1_000);
    expect(transition(late, decide("revise", { note: "shorter" }), expiresAt + 3_000)).toMatchObject({
      ok: true,
      draft: { status: "revise", revision_note: "shorter", approval: null },
    });
    expect(transition(late, decide("defer"), expiresAt + 3_000)).toMatchObject({
      ok: true,
      draft: { status: "deferred", expires_at: new Date(expiresAt + HOUR).toISOString() },
    });
  });

  it("a 👍 again is refused as already approved; a 👎 bound to another text version undoes nothing", () => {
    const d = approved();
    expect(transition(d, decide("send"), TAP + 2_000)).toEqual({ ok: false, reason: "already_approved", status: "approved" });
    expect(transition(d, decide("revise", { textVersion: 2 }), TAP + 2_000)).toEqual({
      ok: false,
      reason: "outdated_version",
      status: "approved",
    });
  });
});

describe("transition: undo of a revise (contract v3)", () => {
  const revise = (undoMs: number): DraftEvent => ({
    type: "decide",
    decision: "revise",
    actor: reviewer("reply", null),
    note: "shorter",
    deferMs: 0,
    undoMs,
  });

  it("a revise with UNDO_WINDOW is revise at once, undoable until the window ends; no edit is armed for the window's end", () => {
    const result = transition(draftIn("deferred"), revise(10_000), T0);
    expect(result).toMatchObject({ ok: true, draft: { status: "revise", revise_undo: { before: "deferred" } } });
    if (!result.ok) return;
    // The post dates its offer ("↩️ Undo until <time>") and a late tap is answered: an edit then would change nothing he needs.
    expect(result.effects).toEqual([{ type: "show_status", draftId: "d_test" }]);
    const undone = transition(result.draft, { type: "undo", actor: reviewer("reaction", null) }, T0 + 9_000);
    expect(undone).toMatchObject({ ok: true, draft: { status: "deferred", revise_undo: null, revision_note: null } });
    if (undone.ok) expect(undone.draft.undone_at).toBe(new Date(T0 + 9_000).toISOString());
    expect(transition(result.draft, { type: "undo", actor: reviewer() }, T0 + 10_000)).toMatchObject({ ok: false, reason: "undo_closed" });
  });

  it("a revise without UNDO_WINDOW, or one a later draft replaces, cannot be undone", () => {
    const once = transition(draftIn("pending"), revise(0), T0);
    expect(once).toMatchObject({ ok: true, draft: { revise_undo: null } });
    if (once.ok)
      expect(transition(once.draft, { type: "undo", actor: reviewer() }, T0)).toMatchObject({ ok: false, reason: "undo_closed" });
    const windowed = transition(draftIn("pending"), revise(10_000), T0);
    if (!windowed.ok) throw new Error("revise refused");
    const replaced = { ...windowed.draft, revised_by: "d_later" };
    expect(transition(replaced, { type: "undo", actor: reviewer() }, T0 + 1)).toMatchObject({ ok: false, reason: "undo_closed" });
  });
});

describe("transition: a note after the 👎, within the revise's undo window", () => {
  const UNDO = 10_000;
  const sentBack = (changes: Partial<DraftRecord> = {}): DraftRecord => {
    const event: DraftEvent = {
      type: "decide",
      decision: "revise",
      actor: reviewer("reaction", "👎"),
      note: null,
      deferMs: 0,
      undoMs: UNDO,
    };
    const result = transition(draftIn("pending"), event, T0);
    if (!result.ok) throw new Error(`not sent back: ${result.reason}`);
    return { ...result.draft, ...changes };
  };
  type Decide = DraftEvent & { type: "decide" };
  const note = (text: string | null, extra: Partial<Decide> = {}): Decide => ({
    type: "decide",
    decision: "revise",
    actor: reviewer("reply", null),
    note: text,
    deferMs: 0,
    undoMs: UNDO,
    textVersion: 1,
    ...extra,
  });

  it("within the window: the note becomes the revise's, the post shows it, and its ↩️ Undo still ends at the same time (revise_undo unchanged)", () => {
    const revised = sentBack();
    const result = transition(revised, note("shorter, and mention the projector"), T0 + 4_000);
    expect(result).toMatchObject({
      ok: true,
      draft: {
        status: "revise",
        revision_note: "shorter, and mention the projector",
        revise_undo: revised.revise_undo,
        version: revised.version + 1,
      },
    });
    if (!result.ok) return;
    expect(result.effects).toEqual([{ type: "show_status", draftId: "d_test" }]);
    // The undo still takes the revise back, and its note with it.
    const undone = transition(result.draft, { type: "undo", actor: reviewer("reply", null) }, T0 + 5_000);
    expect(undone).toMatchObject({ ok: true, draft: { status: "pending", revision_note: null } });
  });

  it("after the window (by when the reviewer wrote it), or with no window at all: refused, note_too_late", () => {
    const revised = sentBack();
    expect(transition(revised, note("shorter"), T0 + UNDO)).toEqual({ ok: false, reason: "note_too_late", status: "revise" });
    // Written inside the window (Telegram's date), applied after it: it counts, as an undo would.
    expect(transition(revised, note("shorter", { actedAt: T0 + UNDO - 1_000 }), T0 + UNDO + 30_000)).toMatchObject({
      ok: true,
      draft: { revision_note: "shorter" },
    });
    expect(transition(revised, note("shorter", { actedAt: T0 + UNDO }), T0 + 1_000)).toMatchObject({ ok: false, reason: "note_too_late" });
    expect(transition(sentBack({ revise_undo: null }), note("shorter"), T0 + 1)).toMatchObject({ ok: false, reason: "note_too_late" });
  });

  it("a revise that has its note already keeps it: note_already_given", () => {
    const first = transition(sentBack(), note("shorter"), T0 + 1_000);
    if (!first.ok) throw new Error("first note refused");
    expect(transition(first.draft, note("and warmer"), T0 + 2_000)).toEqual({ ok: false, reason: "note_already_given", status: "revise" });
    expect(transition(sentBack({ revision_note: "given with the 👎" }), note("more"), T0 + 1)).toMatchObject({
      ok: false,
      reason: "note_already_given",
    });
  });

  it("a superseded draft, or one a later version already answers: note_superseded", () => {
    const superseded = transition(draftIn("pending"), EVENTS.revised, T0);
    if (!superseded.ok) throw new Error("not superseded");
    expect(transition(superseded.draft, note("shorter"), T0 + 1)).toEqual({ ok: false, reason: "note_superseded", status: "revise" });
    expect(transition(sentBack({ revised_by: "d_later" }), note("shorter"), T0 + 1)).toMatchObject({
      ok: false,
      reason: "note_superseded",
    });
  });

  it("a 👎 again, or a note for another text version, is refused as on a final draft", () => {
    const revised = sentBack();
    expect(transition(revised, note(null), T0 + 1)).toMatchObject({ ok: false, reason: "final_state" });
    expect(transition(revised, note("shorter", { textVersion: 2 }), T0 + 1)).toMatchObject({ ok: false, reason: "outdated_version" });
  });

  it("a 👍 or 😴 inside the revise's undo window is a change of mind (D2): the revise is undone and the decision applies in one step", () => {
    const revised = sentBack();
    const approved = transition(revised, EVENTS.decide, T0 + 1);
    expect(approved).toMatchObject({ ok: true, draft: { status: "approved", revise_undo: null, revision_note: null } });
    if (approved.ok) expect(approved.draft.version).toBe(revised.version + 1);
    const deferred = transition(revised, { ...note(null), decision: "defer", deferMs: HOUR }, T0 + 1);
    expect(deferred).toMatchObject({ ok: true, draft: { status: "deferred", revise_undo: null } });
  });

  it("a 👍 or 😴 on a revise after its undo window, or on one a later version replaces, is refused as on a final draft", () => {
    expect(transition(sentBack(), EVENTS.decide, T0 + UNDO)).toMatchObject({ ok: false, reason: "final_state" });
    expect(transition(sentBack({ revise_undo: null }), EVENTS.decide, T0 + 1)).toMatchObject({ ok: false, reason: "final_state" });
    expect(transition(sentBack({ revised_by: "d_later" }), EVENTS.decide, T0 + 1)).toMatchObject({ ok: false, reason: "final_state" });
  });
});

describe("transition: the undo window counts from what the chat shows (contract v4)", () => {
  const UNDO = 5_000;
  const TAP = T0 + HOUR;
  const approveAt = (at: number, extra: Partial<DraftEvent & { type: "decide" }> = {}) => {
    const approved = transition(draftIn("pending"), { ...(EVENTS.decide as DraftEvent & { type: "decide" }), undoMs: UNDO, ...extra }, at);
    if (!approved.ok) throw new Error(`not approved: ${approved.reason}`);
    return approved.draft;
  };
  const iso = (ms: number) => new Date(ms).toISOString();

  it("undo_shown moves send_after to the acceptance plus the window, hands the draft to the send path and drops the Undo after it", () => {
    const approved = approveAt(TAP);
    // The 8th of a burst: its edit was accepted 7.2 s after the tap.
    const shownAt = TAP + 7_200;
    const result = transition(approved, { type: "undo_shown", at: shownAt, version: approved.version, sendAt: null }, shownAt + 3);
    expect(result).toMatchObject({ ok: true, draft: { status: "approved", undo_shown_at: iso(shownAt), send_after: iso(shownAt + UNDO) } });
    expect(result.ok && result.effects).toEqual([
      { type: "send", draftId: "d_test" },
      { type: "show_status_at", draftId: "d_test", at: shownAt + UNDO + UNDO_OVER_EDIT_MS },
    ]);
  });

  it("undo_shown never moves send_after earlier, and honours the send time the message showed", () => {
    const approved = approveAt(TAP);
    const early = transition(approved, { type: "undo_shown", at: TAP - 1_000, version: approved.version, sendAt: null }, TAP);
    expect(early).toMatchObject({ ok: true, draft: { send_after: iso(TAP + UNDO) } });
    const showing = TAP + 300 + UNDO + 700;
    const rounded = transition(approved, { type: "undo_shown", at: TAP + 300, version: approved.version, sendAt: showing }, TAP + 300);
    expect(rounded).toMatchObject({ ok: true, draft: { send_after: iso(showing) } });
  });

  it("undo_shown counts once, and only for the version shown and an approval still waiting for it", () => {
    const approved = approveAt(TAP);
    const event = (version: number) => ({ type: "undo_shown" as const, at: TAP + 1_000, version, sendAt: null });
    const refused = { ok: false, reason: "not_applicable", status: "approved" };
    expect(transition(approved, event(approved.version - 1), TAP + 1_000)).toEqual(refused);
    const once = transition(approved, event(approved.version), TAP + 1_000);
    if (!once.ok) throw new Error("refused");
    expect(transition(once.draft, event(once.draft.version), TAP + 2_000)).toEqual(refused);
    // An approval without a window has no Undo to show.
    const atOnce = transition(draftIn("pending"), EVENTS.decide, TAP);
    if (!atOnce.ok) throw new Error("refused");
    expect(transition(atOnce.draft, event(atOnce.draft.version), TAP)).toEqual(refused);
  });

  it("an undo before the Undo is shown counts (the window has not even begun)", () => {
    const approved = approveAt(TAP);
    expect(transition(approved, EVENTS.undo, TAP + 60_000)).toMatchObject({ ok: true, draft: { status: "pending" } });
  });

  it("a 👍 while sends are halted is halted at once: no approval, no send time, 👍 kept off until the halt ends", () => {
    const result = transition(
      draftIn("pending"),
      { ...(EVENTS.decide as DraftEvent & { type: "decide" }), undoMs: UNDO, halted: "kill switch: x" },
      TAP,
    );
    expect(result).toMatchObject({
      ok: true,
      draft: {
        status: "halted",
        reason: "kill switch: x",
        approval: null,
        send_after: null,
        halt_lasts: true,
        decided_by: { emoji: "👍" },
      },
    });
    expect(result.ok && result.effects).toEqual([{ type: "show_status", draftId: "d_test" }]);
    if (!result.ok) return;
    // A 👍 again while it lasts: halted again. The halt ends: 👍 is offered again, and a 👍 then approves.
    expect(transition(result.draft, EVENTS.halt_lifted, TAP + 1)).toMatchObject({
      ok: true,
      draft: { status: "halted", halt_lasts: false },
    });
    const lifted = transition(result.draft, EVENTS.halt_lifted, TAP + 1);
    if (!lifted.ok) throw new Error("refused");
    expect(lifted.effects).toEqual([{ type: "show_status", draftId: "d_test" }]);
    expect(transition(lifted.draft, EVENTS.halt_lifted, TAP + 2)).toEqual({ ok: false, reason: "not_applicable", status: "halted" });
    const again = transition(lifted.draft, { ...(EVENTS.decide as DraftEvent & { type: "decide" }), undoMs: UNDO }, TAP + 3);
    expect(again).toMatchObject({ ok: true, draft: { status: "approved", halt_lasts: false, send_after: iso(TAP + 3 + UNDO) } });
  });

  it("a 👍 after a halt that came and went since the tap is halted, with 👍 offered again at once (the halt is over)", () => {
    const thumbs = {
      ...(EVENTS.decide as DraftEvent & { type: "decide" }),
      undoMs: UNDO,
      halted: "kill switch: came and went",
      haltLasts: false,
    };
    expect(transition(draftIn("pending"), thumbs, TAP)).toMatchObject({
      ok: true,
      draft: { status: "halted", approval: null, send_after: null, halt_lasts: false, reason: "kill switch: came and went" },
    });
  });

  it("a 👍 again while the same halt holds the draft changes nothing its post shows: refused as halted, so it is answered", () => {
    const thumbs = { ...(EVENTS.decide as DraftEvent & { type: "decide" }), undoMs: UNDO, halted: "kill switch: x" };
    const held = transition(draftIn("pending"), thumbs, TAP);
    if (!held.ok) throw new Error("refused");
    expect(transition(held.draft, thumbs, TAP + 1)).toEqual({ ok: false, reason: "halted", status: "halted" });
    // Another halt's reason is news for the post; so is the halt's end, after which a 👍 approves.
    expect(transition(held.draft, { ...thumbs, halted: "kill switch: y" }, TAP + 1)).toMatchObject({
      ok: true,
      draft: { reason: "kill switch: y" },
    });
  });

  it("a halt at the send call keeps 👍 off only while the switch is halted (lasting)", () => {
    const approved = approveAt(TAP);
    expect(transition(approved, { type: "halt", reason: "kill switch: on", lasting: true }, TAP + 1)).toMatchObject({
      ok: true,
      draft: { status: "halted", halt_lasts: true },
    });
    expect(transition(approved, { type: "halt", reason: "kill switch: a halt began after the approval" }, TAP + 1)).toMatchObject({
      ok: true,
      draft: { status: "halted", halt_lasts: false },
    });
  });

  it("a stale 👍 is refused as before, halted or not", () => {
    const stale = { ...(EVENTS.decide as DraftEvent & { type: "decide" }), textVersion: 2, halted: "kill switch: x" };
    expect(transition(draftIn("pending"), stale, TAP)).toEqual({ ok: false, reason: "outdated_version", status: "pending" });
  });
});
