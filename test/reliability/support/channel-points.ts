/**
 * The kill points of a send on Linear, email and Slack, each armed for one
 * draft in one life of the daemon. Every trigger kills from the callback that
 * sees its event (a store line landing, a held call arriving at a double, a
 * lookup arriving after a lost answer), so the kill lands between two steps
 * of the daemon:
 * - approved: the approval on disk, the send still waiting out its undo window (before the intent);
 * - audience: the audience read again at the send is held at the service (before the intent; Linear, Slack);
 * - intent: the intent (`sending`, with its reference) just landed in the store, the call not yet made;
 * - held: the call reached the service and is held there (Slack and email: the message is stored; Linear: not yet executed);
 * - lost: the service stored the message and dropped the answer; Linear and Slack are killed while
 *   they look for it, email once the data arrived;
 * - answered: the service answered; killed before the outcome line (Linear, Slack: while the
 *   comment's or message's link is read; email: as the client says QUIT).
 * And, armed as a restart begins after a kill that left the draft `sending`:
 * - recovery: Linear and Slack killed while the restart looks for the message; email as its
 *   `outcome_unknown` line lands, before the owner is told.
 */
import type { Life } from "./sweep-daemon.js";
import { watchHarness } from "./sweep-files.js";
import type { ChannelWorld, SweepChannel } from "./channel-world.js";

export const SWEEP_POINTS = ["approved", "audience", "intent", "held", "lost", "answered"] as const;
export type SweepPoint = (typeof SWEEP_POINTS)[number];

/** A send point, or the restart's settling of a send a kill cut short. */
export type KillPoint = SweepPoint | "recovery";

/** The points each channel has (email reads no audience from a server). */
export const POINTS_OF: Readonly<Record<SweepChannel, readonly SweepPoint[]>> = {
  linear: SWEEP_POINTS,
  slack: SWEEP_POINTS,
  email: SWEEP_POINTS.filter((p) => p !== "audience"),
};

/** UNDO_WINDOW of the life that arms `point`: an approval that waits, so the kill lands before the intent. */
export function undoWindowFor(point: SweepPoint): string {
  return point === "approved" ? "500ms" : "0";
}

/** What a trigger needs. */
export interface PointContext {
  readonly world: ChannelWorld;
  readonly life: Life;
  readonly harnessDir: string;
  readonly channel: SweepChannel;
  readonly point: KillPoint;
  readonly draftId: string;
}

/** An armed point: `disarm` stops its watchers and lets every call it held go on (after the kill). */
export interface ArmedPoint {
  disarm(): void;
}

interface Arming {
  readonly ctx: PointContext;
  /** Adds a function that undoes part of the arming (a watcher stopped, a held call released). */
  off(f: () => void): void;
  kill(): void;
}

/** Calls `onHit` once `test` is true, checking every millisecond for at most 30 s. */
function poll(x: Arming, test: () => boolean, onHit: () => void): void {
  const started = Date.now();
  const timer = setInterval(() => {
    if (test()) {
      clearInterval(timer);
      onHit();
    } else if (Date.now() - started > 30_000) clearInterval(timer);
  }, 1);
  x.off(() => clearInterval(timer));
}

/** Kills when the draft's line with this status lands in the store. */
function onStatus(x: Arming, status: string): void {
  const needle = `"status":"${status}"`;
  x.off(
    watchHarness(x.ctx.harnessDir, "telegram_drafts.jsonl", (line) => {
      if (line.includes(x.ctx.draftId) && line.includes(needle)) x.kill();
    }),
  );
}

/** Slack: holds the next call of `method` (handled at once, answered on release) and kills once it was handled. */
function slackHold(x: Arming, method: string): void {
  const hold = x.ctx.world.slack.holdNext(method);
  void hold.handled.then(() => x.kill());
  x.off(() => hold.release());
}

/** Linear: holds the next request naming `field` (unexecuted until released) and kills once it arrived. */
function linearHold(x: Arming, field: string): void {
  const hold = x.ctx.world.linear.holdNext(field);
  void hold.arrived.then(() => x.kill());
  x.off(() => hold.release());
}

/** Linear: when the commentCreate request arrives, the comment lookup that follows it is held and the kill lands there. */
function linearHoldLookupAfterCreate(x: Arming): void {
  let planned = false;
  const stop = x.ctx.world.linear.onRequest((r) => {
    if (planned || !r.rootFields.includes("commentCreate")) return;
    planned = true;
    linearHold(x, "comment");
  });
  x.off(stop);
}

function armLinear(x: Arming): void {
  const { point, world } = x.ctx;
  if (point === "audience") linearHold(x, "issue");
  else if (point === "held") linearHold(x, "commentCreate");
  else {
    if (point === "lost") world.linear.loseNext("commentCreate");
    // lost: the lookup after the lost answer; answered: the read of the comment's url after the answer.
    linearHoldLookupAfterCreate(x);
  }
}

function armSlack(x: Arming): void {
  const { point, world } = x.ctx;
  if (point === "audience") slackHold(x, "conversations.info");
  else if (point === "held") slackHold(x, "chat.postMessage");
  else if (point === "answered") slackHold(x, "chat.getPermalink");
  else {
    world.slack.dropAfterHandling("chat.postMessage");
    slackHold(x, "conversations.history");
  }
}

function armEmail(x: Arming): void {
  const { point, world } = x.ctx;
  const smtp = world.email;
  if (point === "lost") {
    const before = smtp.state.messages.length;
    smtp.dropNextAfterData();
    poll(x, () => smtp.state.messages.length > before, x.kill);
    return;
  }
  const hold = smtp.holdNext();
  x.off(() => hold.release());
  if (point === "held") {
    void hold.received.then(() => x.kill());
    return;
  }
  // answered: the 250 goes out; the client says QUIT once it has read it, and writes the outcome after.
  void hold.received.then(() => {
    const from = smtp.state.commands.length;
    hold.release();
    poll(x, () => smtp.state.commands.slice(from).some((c) => /^QUIT/i.test(c)), x.kill);
  });
}

/** The restart's lookup held (Linear, Slack), or the outcome_unknown line (email). */
function armRecovery(x: Arming): void {
  if (x.ctx.channel === "linear") linearHold(x, "comment");
  else if (x.ctx.channel === "slack") slackHold(x, "conversations.history");
  else onStatus(x, "outcome_unknown");
}

const ARM_CHANNEL: Readonly<Record<SweepChannel, (x: Arming) => void>> = { linear: armLinear, slack: armSlack, email: armEmail };

/** Arms `ctx.point` for `ctx.draftId`; the kill is named `<channel>:<point>`. */
export function armPoint(ctx: PointContext): ArmedPoint {
  const offs: Array<() => void> = [];
  const x: Arming = { ctx, off: (f) => offs.push(f), kill: () => ctx.life.kill(`${ctx.channel}:${ctx.point}`) };
  if (ctx.point === "approved") onStatus(x, "approved");
  else if (ctx.point === "intent") onStatus(x, "sending");
  else if (ctx.point === "recovery") armRecovery(x);
  else ARM_CHANNEL[ctx.channel](x);
  return {
    disarm() {
      for (const f of offs.splice(0)) f();
    },
  };
}
