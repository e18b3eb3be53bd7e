import { describe, expect, it } from "vitest";
import type { AuditedDraft } from "../../src/audit/audit-index.js";
import type { SurfaceState } from "../../src/audit/audit-schema.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { shownOfDraft, surfaceLine } from "../../src/desk/surfaces.js";
import { CRASH_DURING_SEND, planRecovery, STORE_LOST_SEND, storeBehind, type RecoveryFacts } from "../../src/desk/recovery.js";
import { SEND_START_GRACE_MS } from "../../src/drafts/machine.js";
import { UNDO_OVER_EDIT_MS } from "../../src/drafts/undo-window.js";
import type { DraftStatus } from "../../src/drafts/status.js";
import { draftIn, HOUR, OWNER_SENDER, T0 } from "../support/drafts.js";

function facts(
  audited: Record<string, AuditedDraft> = {},
  notified: string[] = [],
  posts: { owed?: string[]; superseded?: string[] } = {},
  surfaces: readonly SurfaceState[] = [],
): RecoveryFacts {
  return {
    surfaces: { at: (chatId, messageId) => surfaces.find((s) => s.chat_id === chatId && s.message_id === messageId) },
    audited: (id) => audited[id],
    wasNotified: (id, status: DraftStatus, delivery?: number) =>
      notified.includes(delivery === undefined ? `${id}:${status}` : `${id}:${status}#${delivery}`),
    statusEditOwed: (id) => (posts.owed ?? []).includes(id),
    supersededDone: (id, m) => (posts.superseded ?? []).includes(`${id}:${m}`),
  };
}

describe("planRecovery (pure: drafts, audit index, now)", () => {
  it("audits a change the log lacks, and nothing it has", () => {
    const a = draftIn("pending", { draft_id: "a", version: 3 });
    const b = draftIn("pending", { draft_id: "b", version: 2 });
    const plan = planRecovery([a, b], facts({ a: { version: 2, to: "queued" }, b: { version: 2, to: "pending" } }), T0);
    expect(plan.unaudited.map((d) => d.draft_id)).toEqual(["a"]);
  });

  it("leaves final drafts the log has no line of unaudited (no crash leaves those), and counts them", () => {
    const sent = draftIn("sent", { draft_id: "s", version: 5 });
    const expired = draftIn("expired", { draft_id: "e", version: 3 });
    const queued = draftIn("queued", { draft_id: "q", version: 1 });
    const lastChange = draftIn("sent", { draft_id: "l", version: 5 });
    const plan = planRecovery([sent, expired, queued, lastChange], facts({ l: { version: 4, to: "sending" } }), T0);
    // A draft's first line is audited before its next change: only a queued draft, or a known one's last change, can be missing.
    expect(plan.unaudited.map((d) => d.draft_id)).toEqual(["q", "l"]);
    expect(plan.unheardFinal).toBe(2);
  });

  it("marks a `sending` draft unknown and never resends it", () => {
    const d = draftIn("sending", { draft_id: "s" });
    const plan = planRecovery([d], facts({ s: { version: 3, to: "sending" } }), T0);
    expect(plan.events).toEqual([{ draftId: "s", event: { type: "send_unknown", reason: CRASH_DURING_SEND } }]);
    expect(plan.effects).toEqual([]);
  });

  it("tells, once each, the deliveries of several whose outcome is unknown and whose notice a crash kept back", () => {
    const choice = (index: number) => ({
      index,
      destination: null,
      destination_chat_id: `-100${index}`,
      destination_thread_id: null,
      audience: null,
      channel_audience: null,
    });
    const deliveries = [
      { index: 1, status: "outcome_unknown", sent_ref: null, reason: "no answer" },
      { index: 2, status: "outcome_unknown", sent_ref: null, reason: "reset" },
      { index: 3, status: "approved", sent_ref: null, reason: null },
    ];
    const d = draftIn("approved", {
      draft_id: "f",
      choices: [1, 2, 3].map(choice),
      choose: "any",
      chosen: 3,
      chosen_set: [1, 2, 3],
      deliveries,
    });
    // Delivery 1's notice went out; 2's did not (the crash came between its mark and its notice).
    const plan = planRecovery([d], facts({ f: { version: d.version, to: "approved" } }, ["f:outcome_unknown#1"]), T0);
    const notices = plan.effects.filter((e) => e.type === "notify");
    expect(notices).toEqual([{ type: "notify", draftId: "f", text: expect.stringContaining("(destination 2: reset)"), delivery: 2 }]);
    // Final, every notice out: nothing more (not the single draft's notice either).
    const final = { ...d, status: "outcome_unknown" as const, deliveries: deliveries.slice(0, 2) };
    const told = planRecovery(
      [final],
      facts({ f: { version: d.version, to: "outcome_unknown" } }, ["f:outcome_unknown#1", "f:outcome_unknown#2"]),
      T0,
    );
    expect(told.effects.filter((e) => e.type === "notify")).toEqual([]);
  });

  it("marks an approval unknown when the audit log shows its send had begun (the store lost that line)", () => {
    const d = draftIn("approved", { draft_id: "x", version: 4 });
    const plan = planRecovery([d], facts({ x: { version: 5, to: "sending" } }), T0);
    expect(plan.events.map((e) => e.event.type)).toEqual(["send_intent", "send_unknown"]);
    expect(plan.events[1]!.event).toMatchObject({ reason: STORE_LOST_SEND });
    expect(plan.effects.some((e) => e.type === "send")).toBe(false);
  });

  it("sends an approval the audit log agrees with, and arms its expiry", () => {
    const d = draftIn("approved", { draft_id: "ok", version: 4 });
    const plan = planRecovery([d], facts({ ok: { version: 4, to: "approved" } }), T0);
    expect(plan.events).toEqual([]);
    expect(plan.effects).toEqual([
      { type: "arm_expiry", draftId: "ok", at: T0 + 24 * HOUR },
      { type: "send", draftId: "ok" },
    ]);
  });

  it("expires what is past expires_at on the simulated clock, and only that", async () => {
    const clock = new SimulatedClock(T0);
    const d = draftIn("pending", { draft_id: "p" });
    const audited = facts({ p: { version: 3, to: "pending" } });
    expect(planRecovery([d], audited, clock.now()).events).toEqual([]);
    await clock.advance(24 * HOUR - 1);
    expect(planRecovery([d], audited, clock.now()).events).toEqual([]);
    await clock.advance(1);
    expect(planRecovery([d], audited, clock.now()).events).toEqual([{ draftId: "p", event: { type: "expire" } }]);
  });

  it("an approval given in time, found past expires_at inside its undo window, is sent when the window ends, not expired", () => {
    const expiresAt = T0 + 24 * HOUR;
    const sendAfter = expiresAt + 5_000;
    const shownAt = new Date(sendAfter - 10_000).toISOString();
    const d = draftIn("approved", { draft_id: "w", send_after: new Date(sendAfter).toISOString(), undo_shown_at: shownAt });
    const plan = planRecovery([d], facts({ w: { version: 3, to: "approved" } }), expiresAt + 1_000);
    expect(plan.events).toEqual([]);
    expect(plan.effects).toEqual([
      { type: "arm_expiry", draftId: "w", at: sendAfter + SEND_START_GRACE_MS },
      { type: "send", draftId: "w" },
      // Should the send not have started by then, the post drops its ↩️ Undo.
      { type: "show_status_at", draftId: "w", at: sendAfter + UNDO_OVER_EDIT_MS },
    ]);
  });

  it("an approval whose ↩️ Undo was never shown (a crash between the 👍 and its edit) gets the edit again, once", () => {
    const d = draftIn("approved", { draft_id: "a", send_after: new Date(T0 + 5_000).toISOString() });
    const effects = (owed: string[]) => planRecovery([d], facts({ a: { version: 3, to: "approved" } }, [], { owed }), T0 + HOUR).effects;
    expect(effects([])).toEqual([
      { type: "arm_expiry", draftId: "a", at: T0 + 24 * HOUR },
      { type: "send", draftId: "a" },
      { type: "show_status", draftId: "a" },
    ]);
    // The edit owed by the 👍's own status_due is the one redone: not twice.
    expect(effects(["a"]).filter((e) => e.type === "show_status")).toHaveLength(1);
  });

  it("tells the reviewers about an unknown outcome once: not when the notice is audited", () => {
    const d = draftIn("outcome_unknown", { draft_id: "u", reason: "timeout" });
    const told = planRecovery([d], facts({ u: { version: 3, to: "outcome_unknown" } }, ["u:outcome_unknown"]), T0);
    expect(told.effects).toEqual([]);
    const untold = planRecovery([d], facts({ u: { version: 3, to: "outcome_unknown" } }), T0);
    expect(untold.effects).toEqual([{ type: "notify", draftId: "u", text: expect.stringContaining("timeout") }]);
  });

  it("posts a queued draft and leaves final ones alone", () => {
    const q = draftIn("queued", { draft_id: "q" });
    const sent = draftIn("sent", { draft_id: "done" });
    const plan = planRecovery([q, sent], facts({ q: { version: 3, to: "queued" }, done: { version: 3, to: "sent" } }), T0);
    expect(plan.effects).toEqual([
      { type: "arm_expiry", draftId: "q", at: T0 + 24 * HOUR },
      { type: "post_review", draftId: "q" },
    ]);
  });

  it("redoes a status edit a crash left undone, so no final draft keeps live buttons", () => {
    const sent = draftIn("sent", { draft_id: "s" });
    const shown = draftIn("sent", { draft_id: "t" });
    const plan = planRecovery(
      [sent, shown],
      facts({ s: { version: 3, to: "sent" }, t: { version: 3, to: "sent" } }, [], { owed: ["s"] }),
      T0 + HOUR,
    );
    expect(plan.effects).toEqual([{ type: "show_status", draftId: "s" }]);
  });

  it("takes the buttons off replaced posts not yet marked, and marks an earlier draft named by `revises`", () => {
    const edited = draftIn("pending", { draft_id: "e", superseded_posts: [40, 41] });
    const earlier = draftIn("revise", { draft_id: "a" });
    const later = draftIn("pending", { draft_id: "b", revises: "a" });
    const plan = planRecovery(
      [edited, earlier, later],
      facts({ e: { version: 3, to: "pending" }, a: { version: 3, to: "revise" }, b: { version: 3, to: "pending" } }, [], {
        superseded: ["e:40"],
      }),
      T0 + HOUR,
    );
    expect(plan.effects).toContainEqual({ type: "supersede_post", draftId: "e", reviewMessageId: 41 });
    expect(plan.effects).not.toContainEqual({ type: "supersede_post", draftId: "e", reviewMessageId: 40 });
    expect(plan.events).toEqual([{ draftId: "a", event: { type: "revised", byDraftId: "b" } }]);
  });

  it("restores a send outcome the audit log has one change ahead of a `sending` store record, and nothing else", () => {
    const out = (reason: string | null, sentMessageId: number | null = null) => ({ sentMessageId, reason, at: T0 + 5 });
    const drafts = ["sent", "failed", "unknown", "same", "old", "halted"].map((id) => draftIn("sending", { draft_id: id, version: 4 }));
    const audited = facts({
      sent: { version: 5, to: "sent", sendOutcome: out(null, 77) },
      failed: { version: 5, to: "failed", sendOutcome: out("Forbidden") },
      unknown: { version: 5, to: "outcome_unknown", sendOutcome: out("timeout") },
      same: { version: 4, to: "sending" },
      // A checkpoint written before send outcomes were kept: the outcome is not known, so it stays unknown.
      old: { version: 5, to: "sent" },
      halted: { version: 5, to: "halted" },
    });
    expect(storeBehind(drafts, audited)).toEqual([
      { draftId: "sent", event: { type: "send_ok", messageId: 77 }, at: T0 + 5 },
      { draftId: "failed", event: { type: "send_failed", reason: "Forbidden" }, at: T0 + 5 },
      { draftId: "unknown", event: { type: "send_unknown", reason: "timeout" }, at: T0 + 5 },
    ]);
    expect(planRecovery(drafts, audited, T0).events.filter((e) => e.draftId === "old")).toEqual([
      { draftId: "old", event: { type: "send_unknown", reason: CRASH_DURING_SEND } },
    ]);
  });
});

describe("planRecovery: a post bound to an identity in an older format", () => {
  const owner = OWNER_SENDER;
  /** The post's surface line as a previous version recorded it: `identity` as it wrote it, the rest as the draft is. */
  const recorded = (d: ReturnType<typeof draftIn>, identity: string, extra: Partial<SurfaceState> = {}): SurfaceState => {
    const where = { chatId: d.review_chat_id!, messageId: d.review_message_id! };
    const { kind: _, ...line } = surfaceLine("decide", where, { ...shownOfDraft(d), identity });
    return { ...line, used: false, ...extra };
  };
  const showsAt = (d: ReturnType<typeof draftIn>, surface: SurfaceState, posts: { owed?: string[] } = {}) =>
    planRecovery([d], facts({ [d.draft_id]: { version: d.version, to: d.status } }, [], posts, [surface]), T0).effects.filter(
      (e) => e.type === "show_status",
    );

  it("re-shows (and so binds again) an owner draft's post recorded as `owner:<connection>:<chat>`", () => {
    const d = draftIn("pending", { draft_id: "o", sender: owner, destination_chat_id: "4242" });
    expect(showsAt(d, recorded(d, "owner:bc1:4242"))).toEqual([{ type: "show_status", draftId: "o" }]);
  });

  it("re-shows a reply's post recorded as `bot`, also when deferred or halted", () => {
    for (const status of ["pending", "deferred", "halted"] as const) {
      const d = draftIn(status, { draft_id: "r", reply_to_message_id: 4711 });
      expect(showsAt(d, recorded(d, "bot"))).toEqual([{ type: "show_status", draftId: "r" }]);
    }
  });

  it("leaves alone a post that binds the identity, that showed another text version or audience, a used one, and a final draft", () => {
    const d = draftIn("pending", { draft_id: "r", reply_to_message_id: 4711 });
    expect(showsAt(d, recorded(d, "bot>4711"))).toEqual([]);
    expect(showsAt(d, recorded(d, "bot", { text_version: d.text_version + 1 }))).toEqual([]);
    expect(showsAt(d, recorded(d, "bot", { audience: "another" }))).toEqual([]);
    expect(showsAt(d, recorded(d, "bot", { used: true }))).toEqual([]);
    const sent = draftIn("sent", { draft_id: "r", reply_to_message_id: 4711 });
    expect(showsAt(sent, recorded(sent, "bot"))).toEqual([]);
  });

  it("an edit already owed is the one re-show (never two)", () => {
    const d = draftIn("pending", { draft_id: "r", reply_to_message_id: 4711 });
    expect(showsAt(d, recorded(d, "bot"), { owed: ["r"] })).toEqual([{ type: "show_status", draftId: "r" }]);
  });
});
