import { afterEach, describe, expect, it } from "vitest";
import { AUDIENCES } from "./explore/commands.js";
import type { ChatMessage } from "./explore/fake-telegram.js";
import { World } from "./explore/world.js";
import { openTestCore, REVIEWER, submitPosted } from "../support/core.js";

// The owner changes his mind, and what he does on an approved or halted post is always answered:
// through run.ts's handlers and start-up (the explorer's World), its Telegram keeping every
// version of every message with the simulated time it accepted it. UNDO_WINDOW is 30 s.

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A world with one draft posted to the group (message 1). */
async function posted(): Promise<{ w: World; post: ChatMessage }> {
  const w = await World.open(AUDIENCES.small!);
  world = w;
  await w.submit();
  return { w, post: w.telegram.message(1)! };
}

/** The bot's messages after the post (answers, notices). */
const botMessagesAfter = (w: World, id: number) => w.telegram.messages.filter((m) => m.fromBot && m.id > id);

describe("a change of mind on an approved post", () => {
  it("👍 changed to 👎 inside the undo window: nothing is sent, the post says it went back, and no new message comes", async () => {
    const { w, post } = await posted();
    await w.react(post, "👍");
    await w.advance(3_000);
    expect(post.text).toMatch(/↩️ Undo/);
    await w.react(post, "👎");
    await w.advance(120_000);
    expect(w.model.sends).toEqual([]);
    expect(post.text).not.toMatch(/Approved/);
    // Sent back: its ↩️ Undo stays dated on the post once the window is over (no edit then: issue 35).
    expect(post.text).toMatch(/^✍️ Sent back for revision\.\n↩️ Undo until /);
    expect(post.buttons).toEqual([expect.stringMatching(/^v1:undo:/)]);
    expect(botMessagesAfter(w, post.id)).toEqual([]);
  });

  it("👍 changed to 😴 inside the window defers the draft: nothing is sent, 👍 Send is offered again", async () => {
    const { w, post } = await posted();
    await w.react(post, "👍");
    await w.advance(3_000);
    await w.react(post, "😴");
    await w.advance(120_000);
    expect(w.model.sends).toEqual([]);
    expect(post.buttons.some((b) => b.startsWith("v1:send:"))).toBe(true);
  });

  it("a note replied to the approved post inside the window sends the draft back with that note", async () => {
    const { w, post } = await posted();
    await w.react(post, "👍");
    await w.advance(3_000);
    await w.write("mention the projector too", post, null);
    await w.advance(120_000);
    expect(w.model.sends).toEqual([]);
    expect(post.text).toContain("mention the projector too");
  });

  it("after the window, a 👎 is answered: the draft is approved and goes out, and /halt is what still stops it", async () => {
    const { w, post } = await posted();
    // The send waits for Telegram (429), so the draft is still approved when the 👎 comes.
    w.telegram.sendOutcomes.push("retry_after");
    await w.react(post, "👍");
    await w.advance(31_500);
    await w.react(post, "👎");
    await w.advance(5_000);
    const answers = botMessagesAfter(w, post.id).map((m) => m.text);
    expect(answers).toEqual([
      expect.stringMatching(/^⚠️ Not applied: the draft is approved and can no longer be undone.*\/halt stops every send not yet made/),
    ]);
  });

  it("a reply 👍 to an approved post is answered: already approved", async () => {
    const { w, post } = await posted();
    await w.react(post, "👍");
    await w.advance(3_000);
    await w.write("👍", post, null);
    await w.advance(2_000);
    expect(botMessagesAfter(w, post.id).map((m) => m.text)).toEqual([expect.stringMatching(/^👍 Already approved/)]);
  });
});

describe("a change of mind on a post sent back for revision", () => {
  it("👎 changed to 👍 inside the revise's undo window undoes the revise and approves: the draft goes out", async () => {
    const { w, post } = await posted();
    await w.react(post, "👎");
    await w.advance(3_000);
    await w.react(post, "👍");
    await w.advance(120_000);
    expect(w.model.sends.length).toBe(1);
    expect(botMessagesAfter(w, post.id).filter((m) => /Not applied/.test(m.text))).toEqual([]);
  });

  it("👎 changed to 👍 after the revise's undo window is refused: nothing is sent", async () => {
    const { w, post } = await posted();
    await w.react(post, "👎");
    await w.advance(31_500);
    await w.react(post, "👍");
    await w.advance(120_000);
    expect(w.model.sends).toEqual([]);
  });
});

describe("a 👍 on a post the halt holds already", () => {
  it("is answered with why nothing changed and where 👍 Send comes back", async () => {
    const { w, post } = await posted();
    await w.write("/halt", null, null);
    await w.react(post, "👍");
    await w.advance(2_000);
    expect(post.text).toMatch(/^⛔ Approved, but not sent: kill switch/);
    const before = botMessagesAfter(w, post.id).length;
    await w.write("👍", post, null);
    await w.advance(2_000);
    const answers = botMessagesAfter(w, post.id).slice(before);
    expect(answers.map((m) => m.text)).toEqual([
      expect.stringMatching(
        /^⛔ Still not sent: sends are halted \(kill switch: halted by the owner.*a 👍 now does not count.*👍 Send comes back on the post when the halt ends/,
      ),
    ]);
    expect(w.model.sends).toEqual([]);
  });
});

describe("a reaction taken away undoes only its own user's decision (issue 32, D1)", () => {
  it("a second reviewer's 👍, refused as already approved, taken away does not undo the owner's approval; the owner's own does", async () => {
    const SECOND = 200000002;
    const t = await openTestCore(undefined, { env: { UNDO_WINDOW: "30s", REVIEWER_USER_IDS: `${REVIEWER},${SECOND}` } });
    try {
      const d = await submitPosted(t, "Approved by the owner, not by the second reviewer");
      const where = { reviewChatId: d.review_chat_id!, reviewMessageId: d.review_message_id! };
      const actor = (user_id: number) => ({ user_id, channel: "reaction" as const, emoji: "👍", update_id: null });
      expect((await t.core.desk.decide({ ...where, decision: "send", actor: actor(REVIEWER), actedAt: t.clock.now() })).ok).toBe(true);
      // The second reviewer's 👍 never counted.
      expect((await t.core.desk.decide({ ...where, decision: "send", actor: actor(SECOND), actedAt: t.clock.now() })).ok).toBe(false);
      const theirs = await t.core.desk.undo({ ...where, actor: actor(SECOND), actedAt: t.clock.now() });
      expect(theirs.ok).toBe(false);
      expect(t.core.desk.get(d.draft_id)?.status).toBe("approved");
      const mine = await t.core.desk.undo({ ...where, actor: actor(REVIEWER), actedAt: t.clock.now() });
      expect(mine.ok).toBe(true);
      expect(t.core.desk.get(d.draft_id)?.status).toBe("pending");
    } finally {
      await t.close();
    }
  });
});
