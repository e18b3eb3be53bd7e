import { describe, expect, it } from "vitest";
import { audienceFingerprint } from "../../src/drafts/audience.js";
import type { Choice } from "../../src/drafts/choices.js";
import type { DraftEvent } from "../../src/drafts/events.js";
import { fanOutStatus } from "../../src/drafts/fan-out.js";
import { transition } from "../../src/drafts/machine.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { draftIn, HOUR, reviewer, T0 } from "../support/drafts.js";

// `choose: "any"` in the pure machine: toggles, a stale 👍 after a toggle, one delivery after another,
// partly_sent, a halt in the middle of a fan-out, an undo that covers every delivery.

const choice = (index: number, chatId: string): Choice => ({
  index,
  destination: null,
  destination_chat_id: chatId,
  destination_thread_id: null,
  audience: null,
  channel_audience: null,
});
const CHOICES = [choice(1, "-1001"), choice(2, "-1002"), choice(3, "-1003")];

function fanOut(overrides: Partial<DraftRecord> = {}): DraftRecord {
  return draftIn("pending", { choices: CHOICES, choose: "any", chosen_set: [1, 2, 3], destination_chat_id: "-1001", ...overrides });
}

let now = T0 + HOUR;
function apply(d: DraftRecord, e: DraftEvent): DraftRecord {
  now += 1000;
  const r = transition(d, e, now);
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.draft;
}
const thumbsUp = (extra: Partial<Extract<DraftEvent, { type: "decide" }>> = {}): DraftEvent => ({
  type: "decide",
  decision: "send",
  actor: reviewer("reaction", "👍"),
  note: null,
  deferMs: HOUR,
  ...extra,
});
const toggle = (destination: number, extra: Partial<Extract<DraftEvent, { type: "toggle" }>> = {}): DraftEvent => ({
  type: "toggle",
  destination,
  actor: reviewer("button", null),
  ...extra,
});

describe("choose any: toggles", () => {
  it("a toggle turns a destination off and on again, edits the post, and changes what the post shows", () => {
    const d = fanOut();
    const r = transition(d, toggle(2), now);
    expect(r.ok && r.draft.chosen_set).toEqual([1, 3]);
    expect(r.ok && r.effects).toEqual([{ type: "show_status", draftId: d.draft_id }]);
    const off = (r.ok && r.draft) as DraftRecord;
    expect(audienceFingerprint(off)).not.toBe(audienceFingerprint(d));
    expect(apply(off, toggle(2)).chosen_set).toEqual([1, 2, 3]);
  });

  it("a toggle made on a post that showed another set, a number the post lacks, or a choose-one draft is refused", () => {
    const d = fanOut();
    const stale = audienceFingerprint(d);
    const off = apply(d, toggle(2));
    expect(transition(off, toggle(1, { audience: stale }), now)).toMatchObject({ ok: false, reason: "outdated_audience" });
    expect(transition(off, toggle(4), now)).toMatchObject({ ok: false, reason: "not_a_choice" });
    expect(transition(fanOut({ choose: "one", chosen_set: null }), toggle(1), now)).toMatchObject({ ok: false, reason: "not_applicable" });
  });

  it("a toggle on a final draft is refused as final", () => {
    const sent = fanOut({ status: "sent" });
    expect(transition(sent, toggle(1), now)).toMatchObject({ ok: false, reason: "final_state" });
  });
});

describe("choose any: the 👍", () => {
  it("sends to those on: one approved delivery each, the draft going to the first", () => {
    const d = apply(apply(fanOut(), toggle(1)), thumbsUp());
    expect(d.status).toBe("approved");
    expect(d.deliveries.map((x) => [x.index, x.status])).toEqual([
      [2, "approved"],
      [3, "approved"],
    ]);
    expect(d.destination_chat_id).toBe("-1002");
  });

  it("a 👍 dated before the last toggle (made on the post that showed the old set) is refused as stale", () => {
    const off = apply(fanOut(), toggle(2));
    const before = Date.parse(off.set_changed_at!) - 1000;
    expect(transition(off, thumbsUp({ actedAt: before }), now)).toMatchObject({ ok: false, reason: "outdated_audience" });
    expect(transition(off, thumbsUp({ audience: audienceFingerprint(fanOut()) }), now)).toMatchObject({
      ok: false,
      reason: "outdated_audience",
    });
    expect(transition(off, thumbsUp({ actedAt: now + 1 }), now + 1).ok).toBe(true);
  });

  it("with every destination off a 👍 is refused (the answer says to turn one on)", () => {
    const none = fanOut({ chosen_set: [] });
    expect(transition(none, thumbsUp(), now)).toMatchObject({ ok: false, reason: "no_destination_on" });
  });

  it("a send button naming one destination is choose one's: refused", () => {
    expect(transition(fanOut(), thumbsUp({ destination: 2 }), now)).toMatchObject({ ok: false, reason: "not_a_choice" });
  });
});

describe("choose any: deliveries", () => {
  it("goes one delivery after another; sent when every one went, each with its sent_ref", () => {
    let d = apply(fanOut({ chosen_set: [1, 3] }), thumbsUp());
    d = apply(d, { type: "send_intent" });
    expect(d.deliveries[0]).toMatchObject({ index: 1, status: "sending" });
    const first = transition(d, { type: "send_ok", messageId: 11 }, (now += 1000));
    expect(first.ok && first.effects.map((e) => e.type)).toEqual(["show_status", "send"]);
    d = (first.ok && first.draft) as DraftRecord;
    expect(d.status).toBe("approved");
    expect(d.destination_chat_id).toBe("-1003");
    expect(d.send_reference).toBeNull();
    d = apply(apply(d, { type: "send_intent" }), { type: "send_ok", messageId: 12 });
    expect(d.status).toBe("sent");
    expect(d.sent_message_id).toBe(12);
    expect(d.deliveries).toEqual([
      { index: 1, status: "sent", sent_ref: { chat_id: "-1001", message_id: 11 }, reason: null },
      { index: 3, status: "sent", sent_ref: { chat_id: "-1003", message_id: 12 }, reason: null },
    ]);
  });

  it("a send intent checked for one delivery is refused once the draft moved on to the next (its own send checks it)", () => {
    let d = apply(apply(fanOut({ chosen_set: [1, 3] }), thumbsUp()), { type: "send_intent", delivery: 1 });
    d = apply(d, { type: "send_ok", messageId: 11 });
    expect(d.chosen).toBe(3);
    // A second attempt for delivery 1 (its checks were for -1001) must not start delivery 3's send.
    expect(transition(d, { type: "send_intent", delivery: 1 }, (now += 1000))).toMatchObject({ ok: false, reason: "other_delivery" });
    expect(apply(d, { type: "send_intent", delivery: 3 })).toMatchObject({ status: "sending", destination_chat_id: "-1003" });
  });

  it("one refused, one sent: partly_sent, a final status, its reason naming the delivery", () => {
    let d = apply(fanOut({ chosen_set: [1, 2] }), thumbsUp());
    d = apply(apply(d, { type: "send_intent" }), { type: "send_ok", messageId: 11 });
    d = apply(apply(d, { type: "send_intent" }), { type: "send_failed", reason: "550 no such user" });
    expect(d.status).toBe("partly_sent");
    expect(d.deliveries.map((x) => x.status)).toEqual(["sent", "failed"]);
    expect(d.reason).toBe("2: 550 no such user");
    expect(transition(d, thumbsUp(), now)).toMatchObject({ ok: false, reason: "final_state" });
  });

  it("a lost answer is that delivery's outcome_unknown, told once, and the next delivery still goes", () => {
    let d = apply(fanOut({ chosen_set: [1, 2] }), thumbsUp());
    d = apply(d, { type: "send_intent" });
    const r = transition(d, { type: "send_unknown", reason: "timeout" }, (now += 1000));
    expect(r.ok && r.effects.map((e) => e.type)).toEqual(["show_status", "notify", "send"]);
    d = apply(apply((r.ok && r.draft) as DraftRecord, { type: "send_intent" }), { type: "send_ok", messageId: 5 });
    expect(d.status).toBe("partly_sent");
    expect(d.deliveries.map((x) => x.status)).toEqual(["outcome_unknown", "sent"]);
  });

  it("a send that provably did not go waits again; an approval that expires before any delivery says so on each", () => {
    let d = apply(fanOut({ chosen_set: [1, 2] }), thumbsUp());
    d = apply(apply(d, { type: "send_intent" }), { type: "send_retry", reason: "429" });
    expect(d.deliveries.map((x) => x.status)).toEqual(["approved", "approved"]);
    const r = transition(d, { type: "expire" }, T0 + 25 * HOUR);
    expect(r.ok && r.draft.status).toBe("expired");
    expect(r.ok && r.draft.deliveries.map((x) => x.status)).toEqual(["expired", "expired"]);
  });

  it("the final status follows the deliveries", () => {
    const of = (...s: string[]) => fanOutStatus(s.map((status, i) => ({ index: i + 1, status, sent_ref: null, reason: null })));
    expect(of("sent", "sent")).toBe("sent");
    expect(of("sent", "failed")).toBe("partly_sent");
    expect(of("failed", "failed")).toBe("failed");
    expect(of("failed", "outcome_unknown")).toBe("outcome_unknown");
  });
});

describe("choose any: halts, undo, edits", () => {
  it("a halt in the middle of a fan-out stops the rest; 👍 again sends only those not made; toggles are refused then", () => {
    let d = apply(fanOut(), thumbsUp());
    d = apply(apply(d, { type: "send_intent" }), { type: "send_ok", messageId: 11 });
    d = apply(d, { type: "halt", reason: "kill switch: HALT file present" });
    expect(d.status).toBe("halted");
    expect(d.deliveries.map((x) => x.status)).toEqual(["sent", "halted", "halted"]);
    expect(transition(d, toggle(2), now)).toMatchObject({ ok: false, reason: "destinations_fixed" });
    d = apply(d, thumbsUp());
    expect(d.deliveries.map((x) => x.status)).toEqual(["sent", "approved", "approved"]);
    expect(d.destination_chat_id).toBe("-1002");
  });

  it("a halt before any delivery was made, or a 👍 while sends are halted, leaves no delivery: the toggles choose again", () => {
    const approved = apply(fanOut(), thumbsUp({ undoMs: 60_000 }));
    const halted = apply(approved, { type: "halt", reason: "kill switch" });
    expect(halted).toMatchObject({ status: "halted", deliveries: [] });
    expect(apply(halted, toggle(3)).chosen_set).toEqual([1, 2]);
    const atOnce = apply(fanOut(), thumbsUp({ halted: "kill switch: HALT" }));
    expect(atOnce).toMatchObject({ status: "halted", deliveries: [] });
  });

  it("a fan-out halted after one delivery that expires ends partly_sent", () => {
    let d = apply(fanOut({ chosen_set: [1, 2] }), thumbsUp());
    d = apply(apply(d, { type: "send_intent" }), { type: "send_ok", messageId: 11 });
    d = apply(d, { type: "halt", reason: "kill switch" });
    const r = transition(d, { type: "expire" }, T0 + 25 * HOUR);
    expect(r.ok && r.draft.status).toBe("partly_sent");
    expect(r.ok && r.draft.deliveries.map((x) => x.status)).toEqual(["sent", "failed"]);
  });

  it("a fan-out halted after one delivery that is sent back, or replaced by a later version, ends partly_sent", () => {
    let d = apply(fanOut({ chosen_set: [1, 2] }), thumbsUp());
    d = apply(apply(d, { type: "send_intent" }), { type: "send_ok", messageId: 11 });
    d = apply(d, { type: "halt", reason: "kill switch" });
    const back = apply(d, thumbsUp({ decision: "revise", note: "not to them" }));
    expect(back).toMatchObject({ status: "partly_sent", revision_note: "not to them" });
    expect(back.deliveries.map((x) => x.status)).toEqual(["sent", "failed"]);
    const replaced = apply(d, { type: "revised", byDraftId: "d_later" });
    expect(replaced).toMatchObject({ status: "partly_sent", revised_by: "d_later" });
  });

  it("undo within the window covers every delivery: none is left", () => {
    const d = apply(fanOut(), thumbsUp({ undoMs: 60_000 }));
    expect(d.deliveries).toHaveLength(3);
    const undone = apply(d, { type: "undo", actor: reviewer("button", "↩️") });
    expect(undone.status).toBe("pending");
    expect(undone.deliveries).toEqual([]);
    expect(undone.chosen_set).toEqual([1, 2, 3]);
  });

  it("an ✏️ edit keeps the destinations and asks for the choice again, all on", () => {
    const off = apply(fanOut(), toggle(2));
    const edited = apply(off, {
      type: "edit",
      text: "new words",
      textSha256: "abc",
      redaction: null,
      actor: reviewer("reply", "✏️"),
    });
    expect(edited.status).toBe("queued");
    expect(edited.choices).toHaveLength(3);
    expect(edited.chosen_set).toEqual([1, 2, 3]);
    expect(edited.set_changed_at).toBeNull();
  });
});
