/**
 * Telegram faults (issue 4): the real daemon against the Bot API double while
 * Telegram misbehaves: 429 storms, 5xx, timeouts, connection resets, an answer
 * lost after the message was accepted, 409 Conflict on getUpdates. The daemon
 * must keep going, never send twice, never send unapproved, and end every
 * draft in the right status: sent, failed with Telegram's reason, or
 * outcome_unknown with a notice to the reviewers.
 */
import { Api } from "grammy";
import { describe, expect, it, type TestContext } from "vitest";
import { eventually } from "../support/daemon-process.js";
import { Scenario } from "./support/sweep-scenario.js";
import { FRIENDS, GROUPS, report } from "./support/sweep-world.js";

const [F1, F2, F3] = FRIENDS as [number, number, number];
const G1 = GROUPS[0]!;

/** A scenario of this test's own, killed when the test ends (the tests run at once, each with its double and daemon). */
async function scenarioOf({ onTestFinished }: TestContext, ...args: Parameters<typeof Scenario.start>): Promise<Scenario> {
  const s = await Scenario.start(...args);
  onTestFinished(() => s.kill().catch(() => {}));
  return s;
}

/**
 * The checks every scenario ends with: a clean stop, then nothing twice, nothing unapproved. The
 * daemon is stopped first: once it has exited nothing more can be sent, so the counts are final.
 */
async function finish(s: Scenario): Promise<{ delivered: number; doubleSends: number; unapproved: number; exit: number | null }> {
  const exit = await s.daemon.stop("SIGTERM");
  expect(exit).toBe(0);
  const v = await s.judge();
  expect(v.doubleSends).toEqual([]);
  expect(v.unapproved).toEqual([]);
  await s.double.stop();
  return { delivered: v.delivered, doubleSends: v.doubleSends.length, unapproved: v.unapproved.length, exit };
}

describe.concurrent("Telegram faults against the real daemon", () => {
  it("rides out a 429 storm: every approved draft is sent once", async (t) => {
    const t0 = Date.now();
    // Telegram's limits on a 1:20 clock; the daemon spaces its calls on a 1:50 clock, so it runs into them.
    const s = await scenarioOf(t, { TELEGRAM_RATE_SCALE: "50" }, (d) => d.setRateLimits({ timeScale: 0.05 }));
    s.double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 1", retry_after: 1, times: 4 });
    const dests = [F1, F1, F1, F2, F2, G1, G1, G1, F3, F3];
    const drafts = await Promise.all(dests.map((d, i) => s.submit(d, `storm ${i}`)));
    for (const d of drafts) await s.approve(d.draft_id);
    s.double.failNext("editMessageText", { error_code: 429, description: "Too Many Requests: retry after 1", retry_after: 1, times: 3 });
    for (const d of drafts) await s.waitFor(d.draft_id, "sent", 90_000);
    for (const [i, d] of drafts.entries()) expect(s.delivered(dests[i]!, d.text)).toBe(1);
    const tooMany = s.double.tooManyRequestsCount;
    expect(tooMany).toBeGreaterThan(4);
    const end = await finish(s);
    report("telegram-faults 429-storm", {
      drafts: drafts.length,
      sent: drafts.length,
      answered_429: tooMany,
      review_chat_waits: s.logs(/rate-limited the review chat/).length,
      ...end,
      seconds: Math.round((Date.now() - t0) / 1000),
    });
  }, 150_000);

  it("5xx: a send answered 5xx is unknown and told; a post, an edit or a poll answered 5xx is retried", async (t) => {
    const t0 = Date.now();
    const s = await scenarioOf(t);
    // A send answered 502: Telegram may have it; outcome_unknown, the reviewer is told, never resent.
    const a = await s.submit(F1, "send answered 502");
    await s.waitFor(a.draft_id, "pending");
    s.double.failNext("sendMessage", { error_code: 502, description: "Bad Gateway" });
    await s.approve(a.draft_id);
    const unknown = await s.waitFor(a.draft_id, "outcome_unknown");
    expect(unknown.reason).toMatch(/502/);
    await eventually(() => s.told(a.draft_id), 15_000, "reviewer told");
    // The review post answered 500: the draft stays queued and is posted again.
    s.double.failNext("sendMessage", { error_code: 500, description: "Internal Server Error" });
    const b = await s.submit(F2, "post answered 500");
    expect(b.status).toBe("queued");
    await s.waitFor(b.draft_id, "pending", 30_000);
    // The edit after the send answered 500: the status goes out as a reply instead.
    s.double.failNext("editMessageText", { error_code: 500, description: "Internal Server Error" });
    await s.approve(b.draft_id);
    const sentB = await s.waitFor(b.draft_id, "sent");
    await eventually(() => s.repliesTo(sentB.review_message_id!).some((t) => t.startsWith("✅ Sent")), 15_000, "status told in a reply");
    // getUpdates answered 502 twice: polling backs off and resumes; the decision arrives.
    const c = await s.submit(F3, "poll answered 502");
    await s.waitFor(c.draft_id, "pending");
    s.double.failNext("getUpdates", { error_code: 502, description: "Bad Gateway", times: 2 });
    await s.wakePoll();
    await s.approve(c.draft_id);
    await s.waitFor(c.draft_id, "sent", 30_000);
    expect([s.delivered(F1, a.text), s.delivered(F2, b.text), s.delivered(F3, c.text)]).toEqual([0, 1, 1]);
    const end = await finish(s);
    report("telegram-faults 5xx", {
      send_502: "outcome_unknown+notice",
      post_500: "queued,reposted",
      edit_500: "reply instead",
      poll_502: "backoff,resumed",
      poll_warnings: s.logs(/getUpdates failed/).length,
      ...end,
      seconds: Math.round((Date.now() - t0) / 1000),
    });
  }, 120_000);

  it("timeouts: a send that times out is unknown and never resent; a post or a poll that times out is retried", async (t) => {
    const t0 = Date.now();
    const s = await scenarioOf(t, { TELEGRAM_TIMEOUT_SECONDS: "2" });
    const a = await s.submit(F1, "send times out");
    await s.waitFor(a.draft_id, "pending");
    s.double.delayNext("sendMessage", 3500);
    await s.approve(a.draft_id);
    const unknown = await s.waitFor(a.draft_id, "outcome_unknown", 20_000);
    expect(unknown.reason).toMatch(/timed out|no answer/i);
    await eventually(() => s.told(a.draft_id), 15_000, "reviewer told");
    // Telegram accepted it after the daemon gave up: it is there once, and stays once.
    await eventually(() => s.delivered(F1, a.text) === 1, 10_000, "late delivery");
    // A review post that times out is posted again; the late first post is an orphan.
    s.double.delayNext("sendMessage", 3500);
    const b = await s.submit(F2, "post times out");
    await s.waitFor(b.draft_id, "pending", 30_000);
    // A poll that times out is repeated.
    s.double.delayNext("getUpdates", 4000);
    await s.wakePoll(); // the poll now held is the one that times out
    await s.approve(b.draft_id);
    await s.waitFor(b.draft_id, "sent", 30_000);
    const orphans = await s.orphanPosts();
    const end = await finish(s);
    expect([s.delivered(F1, a.text), s.delivered(F2, b.text)]).toEqual([1, 1]);
    report("telegram-faults timeouts", {
      client_timeout_s: 2,
      send: "outcome_unknown+notice, delivered late once",
      post: "reposted",
      orphan_review_posts: orphans,
      poll_warnings: s.logs(/getUpdates failed/).length,
      ...end,
      seconds: Math.round((Date.now() - t0) / 1000),
    });
  }, 120_000);

  it("connection resets and answers lost after acceptance: unknown and told, never resent; posts and polls retried", async (t) => {
    const t0 = Date.now();
    const s = await scenarioOf(t);
    // Reset before Telegram did anything: the daemon cannot tell, so it says so.
    const a = await s.submit(F1, "send reset");
    await s.waitFor(a.draft_id, "pending");
    s.double.resetConnection("sendMessage");
    await s.approve(a.draft_id);
    await s.waitFor(a.draft_id, "outcome_unknown");
    await eventually(() => s.told(a.draft_id), 15_000, "reviewer told (reset)");
    // Accepted, then the answer lost.
    const b = await s.submit(F2, "send answer lost");
    await s.waitFor(b.draft_id, "pending");
    s.double.dropResponseAfterAccept("sendMessage");
    await s.approve(b.draft_id);
    await s.waitFor(b.draft_id, "outcome_unknown");
    await eventually(() => s.told(b.draft_id), 15_000, "reviewer told (lost answer)");
    // A review post reset, one whose answer is lost; a poll reset, one whose answer is lost.
    s.double.resetConnection("sendMessage");
    const c = await s.submit(F3, "post reset");
    s.double.dropResponseAfterAccept("sendMessage");
    const d = await s.submit(G1, "post answer lost");
    await s.waitFor(c.draft_id, "pending", 30_000);
    await s.waitFor(d.draft_id, "pending", 30_000);
    s.double.resetConnection("getUpdates");
    s.double.dropResponseAfterAccept("getUpdates");
    await s.approve(c.draft_id);
    await s.approve(d.draft_id);
    await s.waitFor(c.draft_id, "sent", 30_000);
    await s.waitFor(d.draft_id, "sent", 30_000);
    const orphans = await s.orphanPosts();
    const end = await finish(s);
    expect([s.delivered(F1, a.text), s.delivered(F2, b.text), s.delivered(F3, c.text), s.delivered(G1, d.text)]).toEqual([0, 1, 1, 1]);
    report("telegram-faults resets+lost-answers", {
      send_reset: "outcome_unknown+notice (not delivered)",
      send_answer_lost: "outcome_unknown+notice (delivered once)",
      post_reset: "reposted",
      post_answer_lost: "reposted",
      orphan_review_posts: orphans,
      poll_reset_and_lost: "decisions kept",
      ...end,
      seconds: Math.round((Date.now() - t0) / 1000),
    });
  }, 120_000);

  it("409 Conflict on getUpdates: keeps serving, keeps polling, takes decisions again once the other poller is gone", async (t) => {
    const t0 = Date.now();
    const s = await scenarioOf(t);
    const conflict = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running";
    const a = await s.submit(F1, "approved through a 409");
    await s.waitFor(a.draft_id, "pending");
    s.double.failNext("getUpdates", { error_code: 409, description: conflict, times: 2 });
    await s.wakePoll();
    await s.approve(a.draft_id);
    await s.waitFor(a.draft_id, "sent", 30_000);
    // Another program polls the same bot for a while: each side's poll ends the other's held one with 409.
    const intruder = new Api(s.double.token, { apiRoot: s.double.url });
    const intruderConflicts = { n: 0 };
    const intrude = (async () => {
      for (let i = 0; i < 6; i++) {
        await intruder.getUpdates({ timeout: 1 }).catch(() => intruderConflicts.n++);
      }
    })();
    // Meanwhile the daemon still takes drafts.
    const b = await s.submit(F2, "approved after the other poller left");
    expect(["pending", "queued"]).toContain(b.status);
    await intrude;
    await s.approve(b.draft_id);
    await s.waitFor(b.draft_id, "sent", 30_000);
    expect(s.daemon.child.exitCode).toBeNull();
    expect([s.delivered(F1, a.text), s.delivered(F2, b.text)]).toEqual([1, 1]);
    const conflicts = s.logs(/409 Conflict/).length;
    expect(conflicts).toBeGreaterThanOrEqual(2);
    const end = await finish(s);
    report("telegram-faults 409", {
      injected_409: 2,
      intruder_polls: 6,
      intruder_got_409: intruderConflicts.n,
      conflicts_logged: conflicts,
      daemon: "kept running, decisions resumed",
      ...end,
      seconds: Math.round((Date.now() - t0) / 1000),
    });
  }, 90_000);
});
