/**
 * The channel crash sweep's loop: one life of the real daemon per kill
 * point. Each life starts on the same HARNESS_DIR, waits until the draft the
 * last kill cut short has settled and checks everything, submits a draft on
 * the point's channel (now and then also one the owner never approves),
 * arms the point, approves with a 👍, and is killed. A last life without a
 * kill lets everything settle and stops cleanly; then the final checks.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { DraftRecord } from "../../../src/drafts/record.js";
import { isFinal } from "../../../src/drafts/status.js";
import { eventually, freshDirs } from "../../support/daemon-process.js";
import { ChannelLedger, messageIdOf, type SweepDraft } from "./channel-ledger.js";
import { armPoint, POINTS_OF, undoWindowFor, type SweepPoint } from "./channel-points.js";
import { SWEEP_CHANNELS, type ChannelWorld, type SweepChannel } from "./channel-world.js";
import { startLife, type Life } from "./sweep-daemon.js";
import { readLiveStore, readStore } from "./sweep-files.js";
import { OWNER, prng } from "./sweep-world.js";

/** A life whose point did not come within this long is killed anyway (counted as a fallback). */
const LIFE_BUDGET_MS = 20_000;
/** How long a draft cut short may take to settle after the restart (a resend waits for its backoff). */
const SETTLE_MS = 30_000;

/** One kill point of the schedule. */
export interface Job {
  readonly channel: SweepChannel;
  readonly point: SweepPoint;
}

/** What a lane found. */
export interface ChannelLaneResult {
  readonly ledger: ChannelLedger;
  readonly lives: number;
  readonly exitCode: number | null;
  readonly statuses: Record<string, number>;
}

interface Lane {
  readonly world: ChannelWorld;
  readonly dirs: { cwd: string; harnessDir: string };
  readonly ledger: ChannelLedger;
  readonly lane: number;
  readonly rand: () => number;
  readonly debug: boolean;
  n: number;
  /** Lives killed while they settled an earlier kill's send. */
  recoveries: number;
}

/** Every point of every channel, `iterations` times, shuffled with the seed. */
export function channelSchedule(iterations: number, rand: () => number): Job[] {
  const jobs: Job[] = [];
  for (let i = 0; i < iterations; i++)
    for (const channel of SWEEP_CHANNELS) for (const point of POINTS_OF[channel]) jobs.push({ channel, point });
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j]!, jobs[i]!];
  }
  return jobs;
}

async function recordOf(life: Life, draftId: string): Promise<DraftRecord | null> {
  const res = await life.request("GET", `/drafts/${draftId}`);
  return res.status === 200 ? (res.body as DraftRecord) : null;
}

/** Submits a draft on `channel` (among two destinations with `choice`) and waits for its review post; decides nothing. */
async function submit(
  l: Lane,
  life: Life,
  channel: SweepChannel,
  choice?: 1 | 2,
): Promise<{ draftId: string; text: string; post: number }> {
  const payload = l.world.payload(channel, l.n++, l.lane, choice);
  const res = await life.request("POST", "/drafts", payload);
  if (res.status !== 201) throw new Error(`POST /drafts answered ${res.status}: ${JSON.stringify(res.body)}`);
  const draftId = String(res.body.draft_id);
  const rec = await eventually(
    async () => {
      const r = await recordOf(life, draftId);
      return r?.status === "pending" ? r : null;
    },
    15_000,
    `draft ${draftId} posted for review`,
  );
  return { draftId, text: String(payload.draft_text), post: rec.review_message_id! };
}

function react(l: Lane, post: number, emoji: string): void {
  l.world.telegram.injectReaction({ chatId: OWNER, messageId: post, userId: OWNER, newEmojis: [emoji] });
}

/** Every other life: one draft the owner leaves waiting or sends back with 👎; nothing of it may go out. */
async function unapprovedDraft(l: Lane, life: Life, channel: SweepChannel): Promise<void> {
  const decision = l.rand() < 0.5 ? "none" : "revise";
  const { draftId, text, post } = await submit(l, life, channel);
  l.ledger.drafts.push({ channel, draftId, text, point: null, decision, statusAtKill: null, choice: null });
  if (decision === "none") return;
  react(l, post, "👎");
  await eventually(async () => (await recordOf(life, draftId))?.status === "revise", 15_000, `draft ${draftId} sent back`);
}

/** Waits until `d` (the draft the last kill cut short) is final, then checks everything. */
async function settleAndCheck(l: Lane, d: SweepDraft | null): Promise<void> {
  if (d !== null) {
    const settled = await eventually(
      async () => isFinal((await readLiveStore(l.dirs.harnessDir)).drafts.get(d.draftId)?.status ?? "pending"),
      SETTLE_MS,
      "settled",
    ).catch(() => false);
    if (!settled)
      l.ledger.violation(
        `settle:${d.draftId}`,
        `${d.channel} draft ${d.draftId} (${d.point}) did not settle within ${SETTLE_MS} ms of the restart`,
      );
  }
  l.ledger.check((await readLiveStore(l.dirs.harnessDir)).drafts, l.world.arrivals(), false);
}

/** Waits for the kill, or kills once the budget is spent. */
async function killed(l: Lane, life: Life, how: string): Promise<void> {
  const deadline = Date.now() + LIFE_BUDGET_MS;
  while (life.killedBy === null && Date.now() < deadline) await sleep(5);
  if (life.killedBy === null) {
    l.ledger.fallbacks++;
    l.ledger.violation(`fallback:${how}`, `the kill point ${how} never came within ${LIFE_BUDGET_MS} ms`);
  }
  life.kill(`${how}:fallback`);
  await life.proc.exited;
}

/** Starts a life; null (a violation) when it exits or is not running within a minute. */
async function started(l: Lane, env: Record<string, string>, what: string): Promise<Life | null> {
  const life = await startLife(l.dirs, l.world.env(env));
  if ((await Promise.race([life.running, life.proc.exited.then(() => null)])) !== null) return life;
  l.ledger.violation(`start:${what}`, `${what}: the daemon did not start: ${life.proc.rawStderr().slice(-2000)}`);
  await life.proc.stop("SIGKILL");
  return null;
}

/**
 * Submits the job's draft, arms its point, approves it and waits for the kill;
 * where it landed is counted. A third of the drafts carry two destinations:
 * the 👍 picks the first, the post's button "to2" the second.
 */
async function sendAndKill(l: Lane, life: Life, job: Job): Promise<SweepDraft> {
  const roll = l.rand();
  const choice = roll < 1 / 6 ? 1 : roll < 1 / 3 ? 2 : null;
  const { draftId, text, post } = await submit(l, life, job.channel, choice ?? undefined);
  const draft: SweepDraft = { channel: job.channel, draftId, text, point: job.point, decision: "approve", statusAtKill: null, choice };
  l.ledger.drafts.push(draft);
  const armed = armPoint({ world: l.world, life, harnessDir: l.dirs.harnessDir, channel: job.channel, point: job.point, draftId });
  if (choice === 2) l.world.telegram.injectCallback({ chatId: OWNER, messageId: post, userId: OWNER, data: `v1:to2:${draftId}` });
  else react(l, post, "👍");
  await killed(l, life, `${job.channel}:${job.point}`);
  armed.disarm();
  l.world.slack.clearFaults();
  l.world.email.clearFaults();
  draft.statusAtKill = (await readStore(l.dirs.harnessDir)).drafts.get(draftId)?.status ?? "missing";
  const arrived = l.world.arrivals().some((a) => a.channel === job.channel && a.text === text);
  l.ledger.count(`${job.channel}:${job.point}:${draft.statusAtKill}${arrived ? "+arrived" : ""}`);
  return draft;
}

/**
 * A life that is killed while it settles the send the last kill left
 * `sending` (armed as it starts): the draft must settle all the same after
 * the next restart, and an email's owner still be told.
 */
async function recoveryLife(l: Lane, last: SweepDraft): Promise<void> {
  l.recoveries++;
  const life = await startLife(l.dirs, l.world.env());
  const ctx = { world: l.world, life, harnessDir: l.dirs.harnessDir, channel: last.channel, draftId: last.draftId };
  const armed = armPoint({ ...ctx, point: "recovery" });
  await Promise.race([life.running, life.proc.exited]);
  if (life.proc.child.exitCode !== null)
    l.ledger.violation(`start:recovery:${last.draftId}`, `the daemon exited on its own: ${life.proc.rawStderr().slice(-2000)}`);
  await killed(l, life, `${last.channel}:recovery`);
  armed.disarm();
  l.world.slack.clearFaults();
  const status = (await readStore(l.dirs.harnessDir)).drafts.get(last.draftId)?.status ?? "missing";
  l.ledger.count(`${last.channel}:recovery:${status}`);
  if (l.debug) console.log(`lane ${l.lane} recovery of ${last.channel}:${last.point} -> ${status}`);
}

/** One life: start, settle and check the draft the last kill cut short, maybe a draft never approved, then the job's send and kill. */
async function runLife(l: Lane, job: Job, last: SweepDraft | null, lifeNo: number): Promise<SweepDraft | null> {
  const t0 = Date.now();
  const life = await started(l, { UNDO_WINDOW: undoWindowFor(job.point) }, `life ${lifeNo}`);
  if (life === null) return last;
  await settleAndCheck(l, last);
  if (lifeNo % 2 === 1) await unapprovedDraft(l, life, job.channel);
  const draft = await sendAndKill(l, life, job);
  if (l.debug) console.log(`lane ${l.lane} life ${lifeNo} ${job.channel}:${job.point} -> ${draft.statusAtKill} in ${Date.now() - t0} ms`);
  return draft;
}

/** The last life: nothing killed; the last draft settles, every post says how its send ended, a clean stop. */
async function drain(l: Lane, last: SweepDraft | null): Promise<number | null> {
  const life = await started(l, {}, "the last life");
  if (life === null) return null;
  await settleAndCheck(l, last);
  const silent = await eventually(async () => ((await untold(l)).length === 0 ? [] : null), 15_000, "told").catch(() => untold(l));
  if (silent.length > 0)
    l.ledger.violation(
      "untold",
      `drafts whose review post never said how the send ended (✅ Sent, or the Message-ID): ${silent.join(", ")}`,
    );
  return life.proc.stop("SIGTERM");
}

/**
 * The drafts whose review post does not say how their send ended: a sent one
 * must say ✅ Sent, an outcome_unknown one its Message-ID (the owner must be
 * told what to look for).
 */
async function untold(l: Lane): Promise<string[]> {
  const store = await readLiveStore(l.dirs.harnessDir);
  const postOf = (d: DraftRecord) =>
    d.review_message_id === null ? "" : (l.world.telegram.message(OWNER, d.review_message_id)?.text ?? "");
  const told = (d: DraftRecord) =>
    d.status === "sent" ? postOf(d).includes("✅ Sent") : d.status !== "outcome_unknown" || postOf(d).includes(messageIdOf(d));
  return [...store.drafts.values()].filter((d) => !told(d)).map((d) => `${d.draft_id} (${d.status})`);
}

/** Runs `jobs` (kill points) on one HARNESS_DIR against `world`, then the last life and the final checks. */
export async function runChannelLane(o: {
  world: ChannelWorld;
  lane: number;
  jobs: readonly Job[];
  seed: number;
  debug: boolean;
}): Promise<ChannelLaneResult> {
  const rand = prng(o.seed);
  const l: Lane = {
    world: o.world,
    dirs: await freshDirs(),
    ledger: new ChannelLedger(),
    lane: o.lane,
    rand,
    debug: o.debug,
    n: 0,
    recoveries: 0,
  };
  let last: SweepDraft | null = null;
  for (const [i, job] of o.jobs.entries()) {
    // Half the kills that leave a send under way are followed by a kill while the restart settles it.
    if (last?.statusAtKill === "sending" && rand() < 0.5) await recoveryLife(l, last);
    last = await runLife(l, job, last, i);
  }
  const exitCode = await drain(l, last);
  const store = await readStore(l.dirs.harnessDir);
  l.ledger.check(store.drafts, o.world.arrivals(), true);
  const statuses: Record<string, number> = {};
  for (const d of l.ledger.drafts) {
    const key = `${d.channel}:${store.drafts.get(d.draftId)?.status ?? "missing"}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  return { ledger: l.ledger, lives: o.jobs.length + l.recoveries + 1, exitCode, statuses };
}
