import { describe, expect, it } from "vitest";
import type { DraftEvent } from "../../src/drafts/events.js";
import { transition, TRANSITIONS } from "../../src/drafts/machine.js";
import { draftRecordSchema } from "../../src/drafts/record.js";
import { FINAL_STATUSES, STATUSES, type DraftStatus } from "../../src/drafts/status.js";
import { draftIn, EVENTS, HOUR, reviewer, T0 } from "../support/drafts.js";

/** What the table must do for each (status, event) pair: the next status, or the refusal. */
const EXPECTED: Record<DraftStatus, Partial<Record<DraftEvent["type"], DraftStatus | `refused:${string}`>>> = {
  queued: { posted: "pending", expire: "expired", decide: "refused:not_posted" },
  pending: { decide: "approved", expire: "expired" },
  deferred: { decide: "approved", expire: "expired" },
  halted: { decide: "approved", expire: "expired" },
  approved: { expire: "expired", halt: "halted", send_intent: "sending", decide: "refused:already_approved" },
  sending: {
    send_ok: "sent",
    send_failed: "failed",
    send_unknown: "outcome_unknown",
    send_retry: "approved",
    halt: "halted",
    decide: "refused:already_approved",
  },
  sent: {},
  revise: {},
  expired: {},
  failed: {},
  outcome_unknown: {},
};

const AFTER_EXPIRY = T0 + 25 * HOUR;
const BEFORE_EXPIRY = T0 + HOUR;

describe("transition: every (status, event) pair", () => {
  for (const status of STATUSES) {
    for (const [type, event] of Object.entries(EVENTS) as [DraftEvent["type"], DraftEvent][]) {
      const expected =
        EXPECTED[status][type] ?? (FINAL_STATUSES.has(status) ? "refused:final_state" : "refused:not_applicable");
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

  it("lists no final status in the table", () => {
    for (const handlers of Object.values(TRANSITIONS)) {
      for (const status of Object.keys(handlers)) expect(FINAL_STATUSES.has(status as DraftStatus)).toBe(false);
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
    expect(transition(draftIn("pending"), event, T0)).toMatchObject({ ok: true, draft: { status: "revise", revision_note: "shorter please" } });
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
});
