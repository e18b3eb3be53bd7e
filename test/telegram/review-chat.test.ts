import { Api } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { REVIEW_CHAT_LIMITS, TelegramReviewChat } from "../../src/telegram/review-chat.js";
import { reviewChatLimits } from "../../src/telegram/review-lane.js";
import { startTelegramDouble, type TelegramDouble } from "../telegram-double/index.js";
import { draftIn, T0 } from "../support/drafts.js";
import { reviewChatOnDouble } from "../support/review-chat.js";

const OWNER = 5_550_001;
const quiet = { warn() {} };

let double: TelegramDouble;
let clock: SimulatedClock;
let chat: TelegramReviewChat;

beforeEach(async () => {
  double = await startTelegramDouble({ chats: [{ id: OWNER, type: "private" }] });
  clock = new SimulatedClock(T0);
  const api = new Api(double.token, { apiRoot: double.url });
  chat = new TelegramReviewChat({ api, chatId: String(OWNER), threadId: null, deferForMs: 86_400_000, clock, log: quiet });
});

afterEach(async () => {
  await chat.stop();
  await double.stop();
});

/** Moves the simulated clock `ms` forward, letting each review-chat call finish before the next timer. */
const advance = (ms: number) => clock.advance(ms, () => chat.whenIdle());
const texts = () => double.messages(OWNER).map((m) => m.text);

describe("the review chat's pace by kind (simulated clock)", () => {
  it("a private review chat: 30 posts at one a second, no per-minute cap, after one summary line", async () => {
    await chat.stop();
    chat = reviewChatOnDouble(double, String(OWNER), clock, { timeZone: undefined });
    const roles = ["Scribe", "CoS", "Margot"];
    const start = clock.now();
    const posts = Array.from({ length: 30 }, (_, i) =>
      chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Post ${i}`, drafted_by_role: roles[i % 3] as "Scribe" })),
    );
    await chat.whenIdle();
    await advance(31_000);
    await Promise.all(posts);
    expect(clock.now() - start).toBeLessThanOrEqual(31_000);
    const all = texts();
    expect(all.filter((t) => t.startsWith("Post ") || t.includes("Post "))).toHaveLength(30);
    // The first post went at once; the summary counts the 29 that followed it, before any of them.
    expect(all[1]).toBe("📥 29 new drafts: 10 CoS, 10 Margot, 9 Scribe. They follow below.");
    expect(all.filter((t) => t.startsWith("📥"))).toHaveLength(1);
  });

  it("a burst that grows after its summary went out: the summary is corrected once, at the burst's end, to count them all", async () => {
    await chat.stop();
    chat = reviewChatOnDouble(double, String(OWNER), clock, { timeZone: undefined });
    const post = (i: number) => chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Post ${i}`, drafted_by_role: "Scribe" }));
    const first = Array.from({ length: 8 }, (_, i) => post(i));
    await chat.whenIdle();
    await advance(2_000);
    const summary = double.messages(OWNER).find((m) => m.text.startsWith("📥"))!;
    expect(summary.text).toBe("📥 7 new drafts: 7 Scribe. They follow below.");
    const more = Array.from({ length: 4 }, (_, i) => post(8 + i));
    await advance(20_000);
    await Promise.all([...first, ...more]);
    expect(double.message(OWNER, summary.message.message_id)?.text).toBe("📥 11 new drafts: 11 Scribe. They follow below.");
    expect(double.history(OWNER, summary.message.message_id)).toHaveLength(2);
  });

  it("a draft's new version posted during a burst is no new draft: the summary does not count it (issue 35, the day read back)", async () => {
    await chat.stop();
    chat = reviewChatOnDouble(double, String(OWNER), clock, { timeZone: undefined });
    const post = (i: number) => chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Post ${i}`, drafted_by_role: "Scribe" }));
    const first = Array.from({ length: 8 }, (_, i) => post(i));
    await chat.whenIdle();
    await advance(1_000);
    const edited = chat.post(
      draftIn("queued", {
        draft_id: "d_3",
        draft_text: "Post 3, edited",
        drafted_by_role: "Scribe",
        text_version: 2,
        superseded_posts: [4],
      }),
    );
    await advance(20_000);
    await Promise.all([...first, edited]);
    const summary = double.messages(OWNER).find((m) => m.text.startsWith("📥"))!;
    expect(texts().some((t) => t.includes("Post 3, edited"))).toBe(true);
    // What the chat showed of the summary, every version: 7 drafts follow it, the first went before it.
    expect(double.history(OWNER, summary.message.message_id).map((v) => v.text)).toEqual(["📥 7 new drafts: 7 Scribe. They follow below."]);
  });

  it("shows the legend of reactions on the first post of a day, not on every post (issue 35, point 9)", async () => {
    const LEGEND = "👍 send · 👎 revise";
    const post = async (i: number) => {
      const made = chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Post ${i}` }));
      await advance(1_500);
      return double.message(OWNER, (await made).reviewMessageId)?.text ?? "";
    };
    expect(await post(1)).toContain(LEGEND);
    expect(await post(2)).not.toContain(LEGEND);
    expect(await post(3)).not.toContain(LEGEND);
    await advance(24 * 3_600_000);
    expect(await post(4)).toContain(LEGEND);
    expect(await post(5)).not.toContain(LEGEND);
  });

  it("a group review chat keeps 20 a minute", () => {
    expect(reviewChatLimits("-1001234567890")).toEqual(REVIEW_CHAT_LIMITS);
    expect(reviewChatLimits("5550001").perMinute).toBe(Number.POSITIVE_INFINITY);
    expect(reviewChatLimits("5550001", 20).gapMs).toBe(50);
  });
});

describe("the review chat's lanes (simulated clock)", () => {
  it("80 drafts in a burst, then /halt: its answer goes before every queued post", async () => {
    const posts = Array.from({ length: 80 }, (_, i) =>
      chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Draft number ${i}` })),
    );
    await chat.whenIdle();
    await advance(3_000);
    const before = double.messages(OWNER).length;
    expect(before).toBeGreaterThanOrEqual(3);
    expect(before).toBeLessThan(6);

    const answered = chat.say("⛔ Sends halted. Nothing goes out until /resume.");
    await advance(1_000);
    await answered;
    const order = texts();
    const haltAt = order.findIndex((t) => t.startsWith("⛔ Sends halted"));
    expect(haltAt).toBeGreaterThanOrEqual(0);
    expect(haltAt).toBeLessThanOrEqual(before); // at most the post already in flight went first
    expect(order.slice(haltAt + 1).every((t) => t.includes("Draft number"))).toBe(true);
    // Every call is spaced by the gap on the simulated clock: nothing ran early.
    expect(chat.queued).toBeGreaterThan(70);
    void chat.stop();
    await Promise.allSettled(posts);
  });

  it("keeps part of the minute for answers: posts (and a burst's summary) stop at 17, an answer still goes at once", async () => {
    const posts = Array.from({ length: 30 }, (_, i) => chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Post ${i}` })));
    await chat.whenIdle();
    await advance(30_000);
    expect(texts().filter((t) => t.includes("Post ") || t.startsWith("📥"))).toHaveLength(17);
    const answered = chat.say("Nothing awaits a decision.");
    await advance(1_000);
    await answered;
    expect(texts().at(-1)).toBe("Nothing awaits a decision.");
    await advance(35_000);
    expect(texts().filter((t) => t.includes("Post ")).length).toBeGreaterThan(17);
    void chat.stop();
    await Promise.allSettled(posts);
  });

  it("waits out a 429's retry_after on the clock, then posts", async () => {
    double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 5", retry_after: 5 });
    const post = chat.post(draftIn("queued", { draft_id: "d_a", draft_text: "After the 429" }));
    await chat.whenIdle();
    await advance(4_000);
    expect(texts()).toEqual([]);
    await advance(2_000);
    await post;
    expect(texts()).toHaveLength(1);
  });
});

describe("a stop and the answers waiting for the review chat's pace", () => {
  it("drainAnswers lets a waiting answer go out (at most its time on the clock); queued posts stay", async () => {
    await chat.stop();
    chat = reviewChatOnDouble(double, String(OWNER), clock, { timeZone: undefined });
    void chat.post(draftIn("queued", { draft_id: "d_1", draft_text: "Post 1" }));
    const late = chat.post(draftIn("queued", { draft_id: "d_2", draft_text: "Post 2" })).catch(() => "dropped");
    const answer = chat.answer("Nothing to undo: the draft is pending.", null);
    await chat.whenIdle();
    let done = false;
    const drained = chat.drainAnswers(5_000).then(() => void (done = true));
    // The answer goes one second after the first post; the drain ends then, before the next post's turn.
    for (let i = 0; i < 50 && !done; i++) await advance(100);
    await drained;
    await answer;
    expect(clock.now() - T0).toBeLessThanOrEqual(1_200);
    await chat.stop();
    expect(await late).toBe("dropped");
    expect(texts()).toContain("Nothing to undo: the draft is pending.");
    expect(texts().some((t) => t.includes("Post 2"))).toBe(false);
  });

  it("drainAnswers waits for an answer Telegram told to retry later (429), within its time", async () => {
    double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 3", retry_after: 3 });
    const answer = chat.answer("Already sent back to Scribe for revision.", null).catch(() => "dropped");
    await chat.whenIdle();
    let done = false;
    const drained = chat.drainAnswers(5_000).then(() => void (done = true));
    for (let i = 0; i < 60 && !done; i++) await advance(100);
    await drained;
    await chat.stop();
    expect(await answer).not.toBe("dropped");
    expect(texts()).toEqual(["Already sent back to Scribe for revision."]);
  });
});
