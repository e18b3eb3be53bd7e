import { describe, expect, it } from "vitest";
import type { ChannelCall, ChannelSendPlan } from "./fake-channels.js";
import type { ChatMessage, ChatTruth } from "./fake-telegram.js";
import type { DraftRecord } from "../../../src/drafts/record.js";
import { ExploreModel, lostDrafts, type SeenTruth } from "./model.js";
import type { Surface } from "./surface.js";

const RULES = { undoWindowMs: 30_000, confirmOver: 1000, growthCovered: 2, growthFloor: 100 };
/** The review chat of these cases: draft d1's post showed its ↩️ Undo for a minute, then "sent" (before any send here). */
const CHAT: ChatMessage[] = [
  {
    id: 1,
    fromBot: true,
    text: "post",
    entities: [],
    buttons: [],
    everButtons: new Set(["v1:undo:d1"]),
    replyTo: null,
    quoted: null,
    versions: [
      { at: -60_000, text: "approved", buttons: ["v1:undo:d1"] },
      { at: 1_500, text: "sent", buttons: [] },
    ],
  },
];
const NOW = 60_000;
const TRUTH: ChatTruth = { title: "Book club", username: null, members: 5 };
const POST: Surface = {
  messageId: 1,
  draftText: "v1",
  audience: { kind: "known", title: "Book club", members: 5, public: false },
  identity: "bot",
  account: null,
  isQuestion: false,
  decisionControl: true,
  isEditPrompt: false,
  accepts: { approve: true, confirm: false, undo: true },
};

function modelWith(...steps: Array<(m: ExploreModel) => void>): ExploreModel {
  const m = new ExploreModel(RULES);
  m.noteText("v1", "d1");
  m.noteText("v2", "d1");
  for (const s of steps) s(m);
  return m;
}
const approve =
  (step: number, surface: Surface = POST, kind: "approve" | "confirm" = "approve") =>
  (m: ExploreModel) =>
    m.actions.push({
      step,
      at: step * 1000,
      kind,
      channel: "button",
      how: "👍",
      surface: kind === "confirm" ? asQuestion(surface) : surface,
    });
/** The confirmation question about what `surface` showed (it takes only the "Yes, send" tap). */
const asQuestion = (surface: Surface): Surface => ({
  ...surface,
  messageId: surface.messageId + 100,
  isQuestion: true,
  accepts: { approve: false, confirm: true, undo: false },
});
const send =
  (step: number, text = "v1", truth: SeenTruth | null = TRUTH) =>
  (m: ExploreModel) =>
    m.sends.push({ step, at: step * 1000, call: { chatId: "-1", text, outcome: "ok", via: null }, truth, haltedThroughout: false });

describe("the explorer's invariant (judged from its own record alone)", () => {
  it("accepts a send approved on a message that showed that text and audience", () => {
    expect(modelWith(approve(1), send(2)).checkNewSends(CHAT, NOW)).toEqual([]);
  });

  it("flags another text version, another audience, a halt since, an undo, a second send, no evidence", () => {
    const flagged = (m: ExploreModel) => m.checkNewSends(CHAT, NOW).join("\n");
    expect(flagged(modelWith(approve(1), send(2, "v2")))).toMatch(/it showed "v1"/);
    expect(flagged(modelWith(approve(1), send(2, "v1", { ...TRUTH, username: "open" })))).toMatch(/at the send: public/);
    expect(flagged(modelWith(approve(1), (m) => m.haltBegins.push(2), send(3)))).toMatch(/a halt began at step 2/);
    expect(
      flagged(
        modelWith(
          approve(1),
          (m) => m.actions.push({ step: 2, at: 2000, kind: "undo", channel: "button", how: "↩️", surface: POST }),
          send(3),
        ),
      ),
    ).toMatch(/undone at step 2/);
    expect(flagged(modelWith(approve(1), send(2), send(3)))).toMatch(/a second send of d1/);
    expect(flagged(modelWith(approve(1), send(2, "v1", null)))).toMatch(/did not answer/);
    expect(flagged(modelWith(approve(1), send(2, "v1", { ...TRUTH, members: null })))).toMatch(/could not be read at the send/);
  });

  it("a smaller audience binds; one grown past twice the count shown does not, even confirmed", () => {
    const shownLarge: Surface = { ...POST, audience: { kind: "known", title: "Book club", members: 5000, public: false } };
    const confirmed = (truth: ChatTruth) =>
      modelWith(approve(1, shownLarge, "confirm"), send(2, "v1", truth))
        .checkNewSends(CHAT, NOW)
        .join();
    expect(confirmed({ ...TRUTH, members: 5 })).toBe("");
    expect(confirmed({ ...TRUTH, members: 10_000 })).toBe("");
    expect(confirmed({ ...TRUTH, members: 10_001 })).toMatch(/grew past what it showed/);
    expect(modelWith(approve(1), send(2, "v1", { ...TRUTH, members: 104 })).checkNewSends(CHAT, NOW)).toEqual([]);
    expect(
      modelWith(approve(1), send(2, "v1", { ...TRUTH, members: 105 }))
        .checkNewSends(CHAT, NOW)
        .join(),
    ).toMatch(/grew past/);
    const shownPublic: Surface = { ...shownLarge, audience: { kind: "known", title: "Book club", members: 5000, public: true } };
    expect(modelWith(approve(1, shownPublic, "confirm"), send(2, "v1", { ...TRUTH, members: 5000 })).checkNewSends(CHAT, NOW)).toEqual([]);
  });

  it("an action on a message whose controls do not take it neither approves nor undoes (it is refused with a pointer)", () => {
    const flagged = (m: ExploreModel) => m.checkNewSends(CHAT, NOW).join("\n");
    const question = asQuestion(POST);
    expect(
      flagged(
        modelWith(
          (m) => m.actions.push({ step: 1, at: 1000, kind: "approve", channel: "reply", how: "reply 👍", surface: question }),
          send(2),
        ),
      ),
    ).toMatch(/takes no approval/);
    expect(
      flagged(
        modelWith((m) => m.actions.push({ step: 1, at: 1000, kind: "confirm", channel: "button", how: "forged", surface: POST }), send(2)),
      ),
    ).toMatch(/takes no confirmation/);
    const undoOnQuestion = (m: ExploreModel) =>
      m.actions.push({ step: 2, at: 2000, kind: "undo", channel: "reply", how: "reply undo", surface: question });
    expect(modelWith(approve(1, POST, "confirm"), undoOnQuestion, send(3)).checkNewSends(CHAT, NOW)).toEqual([]);
  });

  it("a question takes its buttons only: a 👍 reaction or reply on the “ok” question approves nothing, its 👍 button does", () => {
    const okQuestion: Surface = { ...POST, messageId: 7, isQuestion: true };
    const on = (channel: "reaction" | "reply" | "button") => (m: ExploreModel) =>
      m.actions.push({ step: 1, at: 1000, kind: "approve", channel, how: channel, surface: okQuestion });
    expect(modelWith(on("reaction"), send(2)).checkNewSends(CHAT, NOW).join()).toMatch(/takes its buttons only, and this was a reaction/);
    expect(modelWith(on("reply"), send(2)).checkNewSends(CHAT, NOW).join()).toMatch(/this was a reply/);
    expect(modelWith(on("button"), send(2)).checkNewSends(CHAT, NOW)).toEqual([]);
  });

  it("a large or unknown audience binds only through the confirmation tap", () => {
    const large = { ...TRUTH, members: 5000 };
    const shownLarge: Surface = { ...POST, audience: { kind: "known", title: "Book club", members: 5000, public: false } };
    expect(
      modelWith(approve(1, shownLarge), send(2, "v1", large))
        .checkNewSends(CHAT, NOW)
        .join(),
    ).toMatch(/need the confirmation tap/);
    expect(modelWith(approve(1, shownLarge, "confirm"), send(2, "v1", large)).checkNewSends(CHAT, NOW)).toEqual([]);
    // Shown 5, now 5,000: the 👍 made without the tap does not cover it; a confirmation on a question that showed 5,000 does.
    expect(
      modelWith(approve(1), send(2, "v1", large))
        .checkNewSends(CHAT, NOW)
        .join(),
    ).toMatch(/5000 members need the confirmation tap/);
    const unknown: Surface = { ...POST, audience: { kind: "unknown" } };
    expect(modelWith(approve(1, unknown), send(2)).checkNewSends(CHAT, NOW).join()).toMatch(/unknown/);
  });

  it("on a channel: the audience shown must be the service's at the call, readable then, confirmed where it asks; one message per draft", () => {
    const shownTag = (tag: string): Surface => ({ ...POST, audience: { kind: "channel", tag } });
    const call = (plan: ChannelSendPlan, over: Partial<ChannelCall> = {}): ChannelCall => ({
      channel: "slack",
      draftId: "d1",
      reference: "r",
      text: "v1",
      plan,
      arrived: plan === "ok" || plan === "lost_arrived" || plan === "throws",
      truth: { tag: "slack-small", readers: 5, confirm: null },
      readable: true,
      credentialsRefusedAtStart: false,
      ...over,
    });
    const sendOn = (step: number, c: ChannelCall) => (m: ExploreModel) =>
      m.sends.push({
        step,
        at: step * 1000,
        call: { chatId: c.channel, text: c.text, outcome: c.plan === "ok" ? "ok" : "unknown", via: null },
        truth: null,
        haltedThroughout: false,
        channel: c,
      });
    const flagged = (...steps: Array<(m: ExploreModel) => void>) =>
      modelWith(...steps)
        .checkNewSends(CHAT, NOW)
        .join("\n");
    expect(flagged(approve(1, shownTag("slack-small")), sendOn(2, call("ok")))).toBe("");
    expect(
      flagged(approve(1, shownTag("slack-small")), sendOn(2, call("ok", { truth: { tag: "slack-grown", readers: 9, confirm: null } }))),
    ).toMatch(/at the send it was \[aud slack-grown\]/);
    const large = { tag: "slack-large", readers: 5000, confirm: "over 1,000" };
    expect(flagged(approve(1, shownTag("slack-large")), sendOn(2, call("ok", { truth: large })))).toMatch(/needs one/);
    expect(flagged(approve(1, shownTag("slack-large"), "confirm"), sendOn(2, call("ok", { truth: large })))).toBe("");
    const unknown: Surface = { ...POST, audience: { kind: "unknown" } };
    expect(flagged(approve(1, unknown, "confirm"), sendOn(2, call("ok", { readable: false })))).toMatch(/did not answer who reads/);
    expect(flagged(approve(1, shownTag("slack-small")), sendOn(2, call("ok", { credentialsRefusedAtStart: true })))).toMatch(
      /halted because its service refused the credentials/,
    );
    // A lost answer before the message arrived may be sent again on Slack; never on email, and never after one that arrived.
    expect(flagged(approve(1, shownTag("slack-small")), sendOn(2, call("lost_absent")), sendOn(3, call("ok")))).toBe("");
    const email = { channel: "email" as const, truth: { tag: "email-small", readers: 1, confirm: null } };
    expect(flagged(approve(1, shownTag("email-small")), sendOn(2, call("lost_absent", email)), sendOn(3, call("ok", email)))).toMatch(
      /a second send of d1/,
    );
    expect(flagged(approve(1, shownTag("slack-small")), sendOn(2, call("lost_arrived")), sendOn(3, call("ok")))).toMatch(/a second send/);
  });

  it("at the end of a run, a live draft still approved or sending is lost; a halted, final or test-mode one is not", () => {
    const d = (draft_id: string, status: string, more: object = {}) =>
      ({ draft_id, status, test_mode: false, destination: null, ...more }) as unknown as DraftRecord;
    const lost = lostDrafts([
      d("a", "approved"),
      d("b", "sending", { destination: { channel: "email" } }),
      d("c", "halted"),
      d("e", "outcome_unknown"),
      d("f", "approved", { test_mode: true }),
    ]);
    expect(lost).toEqual([
      expect.stringMatching(/^draft a \(telegram\) is still approved/),
      expect.stringMatching(/^draft b \(email\) is still sending/),
    ]);
  });
});
