import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditIndex } from "../../src/audit/audit-index.js";
import { AuditLog } from "../../src/audit/audit-log.js";
import type { SurfaceState } from "../../src/audit/audit-schema.js";
import { RESUME_SURFACES_KEPT } from "../../src/audit/surface-book.js";
import { judgeSurface, shownOfHalt, surfaceLine, type Shown } from "../../src/desk/surfaces.js";
import { memoryLog, tempDir } from "../store/helpers.js";

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

const where = { chatId: "100", messageId: 7 };
const shown: Shown = { draft_id: "d1", text_version: 2, audience: "aud-1", identity: "bot", liveMessageId: 7 };
const state = (asks: SurfaceState["asks"], over: Partial<SurfaceState> = {}): SurfaceState => {
  const { kind: _, ...fields } = surfaceLine(asks, where, shown);
  return { ...fields, used: false, ...over };
};

describe("judgeSurface: the one rule", () => {
  it("lets through only what the surface asks, as it showed it", () => {
    expect(judgeSurface(state("decide"), shown, "decide", {}, 0)).toEqual({ ok: true });
    expect(judgeSurface(state("confirm"), shown, "confirm", { draftId: "d1" }, 0)).toEqual({ ok: true });
    const no = (s: SurfaceState, now: Shown, action: Parameters<typeof judgeSurface>[2], claim = {}) =>
      judgeSurface(s, now, action, claim, 0);
    expect(no(state("edit"), shown, "decide")).toEqual({ ok: false, reason: "wrong_surface" });
    expect(no(state("decide"), shown, "confirm")).toEqual({ ok: false, reason: "wrong_surface" });
    expect(no(state("confirm"), shown, "confirm", { draftId: "d2" })).toEqual({ ok: false, reason: "button_names_another_draft" });
    expect(no(state("confirm", { used: true }), shown, "confirm")).toEqual({ ok: false, reason: "surface_used" });
    expect(no(state("decide"), { ...shown, liveMessageId: 8 }, "decide")).toEqual({ ok: false, reason: "not_live_post" });
    expect(no(state("confirm"), { ...shown, text_version: 3 }, "confirm")).toEqual({ ok: false, reason: "outdated_version" });
    expect(no(state("confirm"), { ...shown, audience: "aud-2" }, "confirm")).toEqual({ ok: false, reason: "outdated_audience" });
    expect(no(state("decide"), { ...shown, identity: "owner" }, "decide")).toEqual({ ok: false, reason: "outdated_identity" });
  });

  it("🤖 Send as the bot instead: only that tap, on the draft as the notice showed it (as the owner)", () => {
    const asYou: Shown = { ...shown, identity: "owner:bc1:42" };
    const offer = { ...surfaceLine("asbot", where, asYou), used: false };
    expect(judgeSurface(offer, asYou, "asbot", { draftId: "d1" }, 0)).toEqual({ ok: true });
    expect(judgeSurface(offer, asYou, "decide", {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface(state("decide"), shown, "asbot", {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface({ ...offer, used: true }, asYou, "asbot", {}, 0)).toEqual({ ok: false, reason: "surface_used" });
    expect(judgeSurface(offer, { ...asYou, text_version: 3 }, "asbot", {}, 0)).toEqual({ ok: false, reason: "outdated_version" });
    // Already moved to the bot: the offer is outdated.
    expect(judgeSurface(offer, shown, "asbot", {}, 0)).toEqual({ ok: false, reason: "outdated_identity" });
  });

  it("the question a reply 'ok' gets: a decision on it counts once, only for what it showed, and it keeps the reply as its note", () => {
    const ask = { ...surfaceLine("ask", { chatId: "100", messageId: 9 }, shown, { note: "ok" }), used: false };
    expect(ask.note).toBe("ok");
    // Not the review post: the live post check does not apply, what it showed does.
    expect(judgeSurface(ask, shown, "decide", { draftId: "d1" }, 0)).toEqual({ ok: true });
    expect(judgeSurface(ask, shown, "undo", {}, 0)).toEqual({ ok: false, reason: "wrong_surface" });
    expect(judgeSurface(ask, { ...shown, text_version: 3 }, "decide", {}, 0)).toEqual({ ok: false, reason: "outdated_version" });
    expect(judgeSurface(ask, { ...shown, audience: "aud-2" }, "decide", {}, 0)).toEqual({ ok: false, reason: "outdated_audience" });
    expect(judgeSurface({ ...ask, used: true }, shown, "decide", {}, 0)).toEqual({ ok: false, reason: "surface_used" });
  });

  it("a /resume confirmation: its own token, its halt, before it expires", () => {
    const resume = { ...surfaceLine("resume", where, shownOfHalt("halt-a"), { token: "t1", until: 100 }), used: false };
    expect(judgeSurface(resume, shownOfHalt("halt-a"), "resume", { token: "t1" }, 50)).toEqual({ ok: true });
    expect(judgeSurface(resume, shownOfHalt("halt-b"), "resume", { token: "t1" }, 50)).toEqual({ ok: false, reason: "outdated_halt" });
    expect(judgeSurface(resume, shownOfHalt("halt-a"), "resume", { token: "t2" }, 50)).toEqual({ ok: false, reason: "token_mismatch" });
    expect(judgeSurface(resume, shownOfHalt("halt-a"), "resume", { token: "t1" }, 100)).toEqual({ ok: false, reason: "surface_expired" });
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
