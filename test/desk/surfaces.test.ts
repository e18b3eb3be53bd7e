import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditIndex } from "../../src/audit/audit-index.js";
import { AuditLog } from "../../src/audit/audit-log.js";
import type { SurfaceState } from "../../src/audit/audit-schema.js";
import { RESUME_SURFACES_KEPT } from "../../src/audit/surface-book.js";
import { actOf, judgeSurface, shownOfHalt, surfaceLine, viaOf, type Act, type Shown, type SurfaceAction } from "../../src/desk/surfaces.js";
import { memoryLog, tempDir } from "../store/helpers.js";

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

const where = { chatId: "100", messageId: 7 };
const shown: Shown = { draft_id: "d1", text_version: 2, audience: "aud-1", identity: "bot", liveMessageId: 7 };
const tap = (does: SurfaceAction): Act => ({ does, via: "tap" });
const state = (asks: SurfaceState["asks"], over: Partial<SurfaceState> = {}): SurfaceState => {
  const { kind: _, ...fields } = surfaceLine(asks, where, shown);
  return { ...fields, used: false, ...over };
};

describe("judgeSurface: the one rule", () => {
  it("lets through only what the surface asks, as it showed it", () => {
    expect(judgeSurface(state("decide"), shown, tap("decide"), {}, 0)).toEqual({ ok: true });
    expect(judgeSurface(state("confirm"), shown, tap("confirm"), { draftId: "d1" }, 0)).toEqual({ ok: true });
    const no = (s: SurfaceState, now: Shown, action: SurfaceAction, claim = {}) => judgeSurface(s, now, tap(action), claim, 0);
    expect(no(state("edit"), shown, "decide")).toEqual({ ok: false, reason: "wrong_surface" });
    expect(no(state("decide"), shown, "confirm")).toEqual({ ok: false, reason: "wrong_surface" });
    expect(no(state("confirm"), shown, "confirm", { draftId: "d2" })).toEqual({ ok: false, reason: "button_names_another_draft" });
    expect(no(state("confirm", { used: true }), shown, "confirm")).toEqual({ ok: false, reason: "surface_used" });
    expect(no(state("decide"), { ...shown, liveMessageId: 8 }, "decide")).toEqual({ ok: false, reason: "not_live_post" });
    expect(no(state("confirm"), { ...shown, text_version: 3 }, "confirm")).toEqual({ ok: false, reason: "outdated_version" });
    expect(no(state("confirm"), { ...shown, audience: "aud-2" }, "confirm")).toEqual({ ok: false, reason: "outdated_audience" });
    expect(no(state("decide"), { ...shown, identity: "owner" }, "decide")).toEqual({ ok: false, reason: "outdated_identity" });
  });

  it("a revise or a defer never sends: the audience and the identity the post showed do not bind it, its text version does", () => {
    const withdraw = (decision: "revise" | "defer"): Act => actOf("decide", "reply", decision);
    const moved: Shown = { ...shown, audience: "aud-2", identity: "owner:bc1:42" };
    expect(judgeSurface(state("decide"), moved, withdraw("defer"), {}, 0)).toEqual({ ok: true });
    expect(judgeSurface(state("decide"), moved, withdraw("revise"), {}, 0)).toEqual({ ok: true });
    expect(judgeSurface(state("decide"), { ...moved, text_version: 3 }, withdraw("defer"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_version",
    });
    expect(judgeSurface(state("decide"), moved, actOf("decide", "reply", "send"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_audience",
    });
    expect(judgeSurface(state("decide"), { ...shown, identity: "owner:bc1:42" }, actOf("decide", "button", "send"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_identity",
    });
  });

  it("🤖 Send as the bot instead: only that tap, on the draft as the notice showed it (as the owner)", () => {
    const asYou: Shown = { ...shown, identity: "owner:bc1:42" };
    const offer = { ...surfaceLine("asbot", where, asYou), used: false };
    expect(judgeSurface(offer, asYou, tap("asbot"), { draftId: "d1" }, 0)).toEqual({ ok: true });
    expect(judgeSurface(offer, asYou, tap("decide"), {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface(state("decide"), shown, tap("asbot"), {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface({ ...offer, used: true }, asYou, tap("asbot"), {}, 0)).toEqual({ ok: false, reason: "surface_used" });
    expect(judgeSurface(offer, { ...asYou, text_version: 3 }, tap("asbot"), {}, 0)).toEqual({ ok: false, reason: "outdated_version" });
    // Already moved to the bot: the offer is outdated.
    expect(judgeSurface(offer, shown, tap("asbot"), {}, 0)).toEqual({ ok: false, reason: "outdated_identity" });
  });

  it("the question a reply 'ok' gets: a decision on it counts once, only for what it showed, and it keeps the reply as its note", () => {
    const ask = { ...surfaceLine("ask", { chatId: "100", messageId: 9 }, shown, { note: "ok" }), used: false };
    expect(ask.note).toBe("ok");
    // Not the review post: the live post check does not apply, what it showed does.
    expect(judgeSurface(ask, shown, tap("decide"), { draftId: "d1" }, 0)).toEqual({ ok: true });
    expect(judgeSurface(ask, shown, tap("undo"), {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface(ask, { ...shown, text_version: 3 }, tap("decide"), {}, 0)).toEqual({ ok: false, reason: "outdated_version" });
    expect(judgeSurface(ask, { ...shown, audience: "aud-2" }, tap("decide"), {}, 0)).toEqual({ ok: false, reason: "outdated_audience" });
    expect(judgeSurface({ ...ask, used: true }, shown, tap("decide"), {}, 0)).toEqual({ ok: false, reason: "surface_used" });
  });

  it("a /resume confirmation: its own token, its halt, before it expires", () => {
    const resume = { ...surfaceLine("resume", where, shownOfHalt("halt-a"), { token: "t1", until: 100 }), used: false };
    expect(judgeSurface(resume, shownOfHalt("halt-a"), tap("resume"), { token: "t1" }, 50)).toEqual({ ok: true });
    expect(judgeSurface(resume, shownOfHalt("halt-b"), tap("resume"), { token: "t1" }, 50)).toEqual({ ok: false, reason: "outdated_halt" });
    expect(judgeSurface(resume, shownOfHalt("halt-a"), tap("resume"), { token: "t2" }, 50)).toEqual({
      ok: false,
      reason: "token_mismatch",
    });
    expect(judgeSurface(resume, shownOfHalt("halt-a"), tap("resume"), { token: "t1" }, 100)).toEqual({
      ok: false,
      reason: "surface_expired",
    });
  });
});

describe("judgeSurface: how an action came, reminders and notices (issue 25)", () => {
  const via = (does: SurfaceAction, how: Act["via"]): Act => ({ does, via: how });

  it("a question takes taps only: a reaction or a reply on one that still holds is taps_only, whatever it says", () => {
    const ask = { ...surfaceLine("ask", { chatId: "100", messageId: 9 }, shown, { note: "ok" }), used: false };
    expect(judgeSurface(ask, shown, via("decide", "tap"), {}, 0)).toEqual({ ok: true });
    expect(judgeSurface(ask, shown, via("decide", "reaction"), {}, 0)).toEqual({ ok: false, reason: "taps_only" });
    expect(judgeSurface(ask, shown, via("decide", "reply"), {}, 0)).toEqual({ ok: false, reason: "taps_only" });
    expect(judgeSurface(ask, shown, via("undo", "reply"), {}, 0)).toEqual({ ok: false, reason: "taps_only" });
    // A reaction on a confirmation is no confirmation, though it is a decide and the question asks confirm.
    expect(judgeSurface(state("confirm"), shown, via("decide", "reaction"), {}, 0)).toEqual({ ok: false, reason: "taps_only" });
    const resume = { ...surfaceLine("resume", where, shownOfHalt("h"), { token: "t", until: 100 }), used: false };
    expect(judgeSurface(resume, shownOfHalt("h"), via("decide", "reaction"), {}, 50)).toEqual({ ok: false, reason: "taps_only" });
    // Used or outdated comes first: the answer then points to the live post, not to buttons that are gone or mean nothing.
    expect(judgeSurface({ ...ask, used: true }, shown, via("decide", "reaction"), {}, 0)).toEqual({ ok: false, reason: "surface_used" });
    expect(judgeSurface(ask, { ...shown, text_version: 3 }, via("decide", "reaction"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_version",
    });
    expect(judgeSurface(resume, shownOfHalt("h"), via("decide", "reaction"), {}, 100)).toEqual({ ok: false, reason: "surface_expired" });
  });

  it("the review post and the edit prompt take reactions and replies as they always did", () => {
    for (const how of ["tap", "reaction", "reply"] as const) {
      expect(judgeSurface(state("decide"), shown, via("decide", how), {}, 0)).toEqual({ ok: true });
      expect(judgeSurface(state("decide"), shown, via("undo", how), {}, 0)).toEqual({ ok: true });
    }
    expect(judgeSurface(state("edit"), shown, via("edit", "reply"), {}, 0)).toEqual({ ok: true });
    expect(judgeSurface(state("edit"), shown, via("decide", "reaction"), {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
  });

  it("a reminder counts as its post: every way in, while that post is live and shows what the reminder showed, until its deadline", () => {
    // The reminder is message 12; the live post it stands for is 7.
    const reminder = { ...surfaceLine("remind", { chatId: "100", messageId: 12 }, shown, { post: 7, until: 1_000 }), used: false };
    for (const how of ["tap", "reaction", "reply"] as const) {
      for (const does of ["decide", "prompt", "edit", "undo"] as const) {
        expect(judgeSurface(reminder, shown, via(does, how), {}, 0)).toEqual({ ok: true });
      }
    }
    expect(judgeSurface(reminder, shown, via("confirm", "tap"), {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface(reminder, shown, via("decide", "tap"), { draftId: "d2" }, 0)).toEqual({
      ok: false,
      reason: "button_names_another_draft",
    });
    // Its post was replaced (a new version is posted): not the live post any more.
    expect(judgeSurface(reminder, { ...shown, liveMessageId: 8 }, via("decide", "reaction"), {}, 0)).toEqual({
      ok: false,
      reason: "not_live_post",
    });
    expect(judgeSurface(reminder, { ...shown, text_version: 3, liveMessageId: 7 }, via("decide", "reply"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_version",
    });
    expect(judgeSurface(reminder, { ...shown, audience: "aud-2" }, via("decide", "tap"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_audience",
    });
    expect(judgeSurface(reminder, { ...shown, identity: "owner:bc1:42" }, via("decide", "tap"), {}, 0)).toEqual({
      ok: false,
      reason: "outdated_identity",
    });
    expect(judgeSurface(reminder, shown, via("decide", "reaction"), {}, 1_000)).toEqual({ ok: false, reason: "surface_expired" });
    // Closed once the draft moved on: used up.
    expect(judgeSurface({ ...reminder, used: true }, shown, via("decide", "reply"), {}, 0)).toEqual({ ok: false, reason: "surface_used" });
    // The post's own surface is bound to itself, not to the reminder's post field.
    expect(judgeSurface(state("decide"), { ...shown, liveMessageId: 12 }, via("decide", "tap"), {}, 0)).toEqual({
      ok: false,
      reason: "not_live_post",
    });
  });

  it("a notice takes nothing, whatever comes on it", () => {
    const notice = { ...surfaceLine("notice", { chatId: "100", messageId: 20 }, shown), used: false };
    for (const how of ["tap", "reaction", "reply"] as const) {
      for (const does of ["decide", "confirm", "prompt", "edit", "undo", "asbot"] as const) {
        expect(judgeSurface(notice, shown, via(does, how), {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
      }
    }
  });

  it("how an action came is Telegram's update type: a button or a command's button is a tap; test mode's reactions are reactions", () => {
    expect(["button", "command", "reaction", "reply", "test"].map((c) => viaOf(c as never))).toEqual([
      "tap",
      "tap",
      "reaction",
      "reply",
      "reaction",
    ]);
  });
});

describe("the surfaces in the audit index", () => {
  it("are durable: read back from the log and from the checkpoint (with zod), used marks included; older edit prompts count as edit surfaces", async () => {
    const dir = await tempDir();
    const open = async () => {
      const audit = await AuditLog.open({
        path: join(dir, "swarm.jsonl"),
        log: memoryLog(),
        checkpointPath: join(dir, "audit_index.json"),
      });
      opened.push(audit);
      return audit;
    };
    const audit = await open();
    await audit.append([
      surfaceLine("confirm", where, shown),
      { kind: "surface_used", chat_id: "100", message_id: 7 },
      { kind: "edit_prompt", draft_id: "d1", message_id: 9, text_version: 1 },
    ]);
    await audit.close();
    opened.pop();
    const again = await open();
    expect(again.index.surfaces.at("100", 7)).toMatchObject({ asks: "confirm", used: true, text_version: 2, audience: "aud-1" });
    expect(again.index.surfaces.at("100", 9)).toMatchObject({ asks: "edit", draft_id: "d1", text_version: 1, audience: null });
    const copy = AuditIndex.fromSnapshot(again.index.snapshot("x"));
    expect(copy.surfaces.at("100", 7)).toMatchObject({ used: true });
  });

  it("are bounded: a draft's go with it; only the last few /resume confirmations are kept", () => {
    const index = new AuditIndex();
    index.notePost(surfaceLine("decide", where, shown));
    for (let m = 100; m < 110; m++) index.notePost(surfaceLine("resume", { chatId: "100", messageId: m }, shownOfHalt("h")));
    index.retainDrafts(() => false);
    expect([...index.surfaces.all()].map((s) => s.message_id)).toEqual(
      Array.from({ length: RESUME_SURFACES_KEPT }, (_, i) => 110 - RESUME_SURFACES_KEPT + i),
    );
  });
});
