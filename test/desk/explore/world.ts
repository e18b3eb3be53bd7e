import pino from "pino";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Update } from "grammy/types";
import type { OtherChannelName } from "../../../src/drafts/destination.js";
import type { DraftRecord } from "../../../src/drafts/record.js";
import { harnessPaths } from "../../../src/app/paths.js";
import { AuditLog } from "../../../src/audit/audit-log.js";
import { CLI_AUDIT_SOURCE } from "../../../src/audit/sources.js";
import { ownerHalt, ownerResume } from "../../../src/owner/owner-switch.js";
import { SimulatedClock } from "../../../src/clock/simulated-clock.js";
import { CONFIRM_OVER, DeskHarness, UNDO_WINDOW_MS } from "./desk-harness.js";
import { CHANNEL_DESTINATIONS, type ChannelCall, FakeChannels } from "./fake-channels.js";
import { DESTINATION, FakeTelegram, OWNER, PERSON, type ChatMessage, type ChatTruth } from "./fake-telegram.js";
import { forgeAuditLines, type Forgery } from "./forgery.js";
import { runTestModeSession, type TestModeStep } from "./test-mode-run.js";
import { ExploreModel, lostDrafts, type OwnerAction } from "./model.js";
import { asBotSurfaceOf, isEditPrompt, surfaceOf } from "./surface.js";
import { shownOn } from "./choices.js";

/**
 * Where each run's HARNESS_DIR is made: EXPLORE_DIR, else /dev/shm where there
 * is one (real files in memory: a run writes thousands of fsync'd lines, and
 * the machine's disk is shared), else the system's temporary directory.
 */
const EXPLORE_DIR = process.env.EXPLORE_DIR ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());

/** The explorer's start time: a fixed instant, so a seed replays the same run. */
const T0 = Date.parse("2026-11-30T10:00:00.000Z");

/** Which messages a step picks from: any, or those of one kind (so that an old question or prompt is found often). */
export type MessageKind = "any" | "post" | "question" | "prompt" | "resume" | "reminder" | "choice";

const hasButton = (m: ChatMessage, prefix: string) => [...m.everButtons].some((b) => b.startsWith(prefix));
const KINDS: Record<MessageKind, (m: ChatMessage) => boolean> = {
  any: () => true,
  post: (m) => hasButton(m, "v1:send:"),
  question: (m) => hasButton(m, "v1:confirm:"),
  prompt: isEditPrompt,
  resume: (m) => hasButton(m, "owner:resume:"),
  reminder: (m) => m.fromBot && /^⏰/u.test(m.text),
  // A post among several destinations: a send button per destination (choose one) or a toggle per destination (choose any).
  choice: (m) => hasButton(m, "v1:to") || hasButton(m, "v1:tg"),
};

/** A message a decision counts on (a review post, a reminder): one of the bot's that carried 👍 Send. */
const takesDecisions = (m: ChatMessage) => m.fromBot && hasButton(m, "v1:send:");

/** A step that takes longer than this (real time) is stuck: the daemon waits on something that never comes. */
const STEP_LIMIT_MS = 120_000;

/** `work`, or an error saying `what` once STEP_LIMIT_MS passed. */
async function withinRealTime<T>(work: Promise<T>, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what())), STEP_LIMIT_MS);
  });
  try {
    return await Promise.race([work, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many steps all worlds ran (the report's count). */
export const totals = { steps: 0, runs: 0, seen: new Map<string, number>() };

/** Counts one more of a notable event (the long run prints them: what the runs exercised). */
export function seen(what: string): void {
  totals.seen.set(what, (totals.seen.get(what) ?? 0) + 1);
}

/**
 * One run of the explorer: the daemon (restartable) on its own directory and
 * simulated clock, the Telegram it talks to, and the model that records what
 * the owner did and saw. Each step is one owner action or one change of the
 * world; after it, every new send is judged.
 */
export class World {
  /** The contract's rules; the growth an approval covers is the send call's (twice the count shown, or fewer than 100 more). */
  readonly model = new ExploreModel({ undoWindowMs: UNDO_WINDOW_MS, confirmOver: CONFIRM_OVER, growthCovered: 2, growthFloor: 100 });
  readonly log: string[] = [];
  /** Draft ids the submissions were answered with, in order. */
  readonly drafts: string[] = [];
  /** The owner's reaction on each message, as Telegram keeps it. */
  private readonly reactions = new Map<number, string>();
  private step = 0;
  private halted = false;
  private envHalted = false;
  private textSerial = 0;
  /** When the daemon started again after a stop (simulated time). */
  private readonly starts: number[] = [];

  private constructor(
    readonly dir: string,
    readonly clock: SimulatedClock,
    readonly telegram: FakeTelegram,
    /** Linear, email and Slack: the services the daemon's channels answer from. */
    readonly channels: FakeChannels,
    /** The running daemon; null while it is down (the owner's actions wait in Telegram meanwhile). */
    private desk: DeskHarness | null,
  ) {
    channels.onCall = (call) => this.channelCall(call);
    telegram.onDestinationCall = (call) => {
      seen(`send ${call.outcome} ${call.via === null ? "as the bot" : call.via === OWNER ? "as the owner" : "as another account"}`);
      this.model.sends.push({
        step: this.step,
        at: clock.now(),
        call,
        truth: telegram.audienceAnswering ? { ...telegram.truth, members: telegram.countAnswering ? telegram.truth.members : null } : null,
        haltedThroughout: this.halted,
      });
    };
  }

  static async open(audience: ChatTruth): Promise<World> {
    const dir = await mkdtemp(join(EXPLORE_DIR, "draft-explore-"));
    const clock = new SimulatedClock(T0);
    const telegram = new FakeTelegram(() => clock.now());
    telegram.truth = audience;
    const channels = new FakeChannels();
    const desk = await withinRealTime(
      DeskHarness.open(
        dir,
        clock,
        telegram,
        channels.channelSet(() => clock.now()),
      ),
      () => "the daemon's first start did not end",
    );
    return new World(dir, clock, telegram, channels, desk);
  }

  /** A send call on Linear, email or Slack, stamped for the model as a Telegram send is. */
  private channelCall(call: ChannelCall): void {
    seen(`${call.channel} send ${call.plan}${call.readable ? "" : " (audience unread)"}`);
    const outcome = call.plan === "lost_arrived" || call.plan === "lost_absent" || call.plan === "throws" ? "unknown" : call.plan;
    this.model.sends.push({
      step: this.step,
      at: this.clock.now(),
      call: { chatId: call.channel, text: call.text, outcome, via: null },
      truth: null,
      haltedThroughout: this.halted,
      channel: call,
    });
  }

  async close(): Promise<void> {
    await withinRealTime(this.desk?.close() ?? Promise.resolve(), () => `the daemon did not stop:\n${this.log.join("\n")}`);
    // Retried: a file written as the daemon stops (a halt record) can race the removal.
    await rm(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
  }

  /** A message of the review chat counted from the newest (0 = newest); undefined when there is none. */
  recent(fromEnd: number, kind: MessageKind = "any"): ChatMessage | undefined {
    // None of that kind yet: the newest of any kind.
    const of = this.telegram.messages.filter(KINDS[kind]);
    const all = of.length > 0 ? of : this.telegram.messages;
    return all.length === 0 ? undefined : all[all.length - 1 - (fromEnd % all.length)];
  }

  /** A new text no other draft or version has. */
  newText(): string {
    const words = ["lunch", "agenda", "minutes", "budget", "venue", "tickets", "photos", "notes"];
    const n = ++this.textSerial;
    return `Text ${n}: the ${words[n % words.length]} for Thursday`;
  }

  /** Runs one step: `act`, then the halt state is read and every new send judged. Throws on a violation. */
  async run(what: string, act: () => Promise<void>): Promise<void> {
    this.step++;
    totals.steps++;
    this.log.push(`${this.step}. ${what}`);
    const haltedBefore = this.halted;
    await withinRealTime(
      act(),
      () => `step ${this.step} (${what}) did not end within ${STEP_LIMIT_MS / 1000} s of real time:\n${this.log.join("\n")}`,
    );
    // A halt counts as the daemon can see it: while it is down, a halt made and lifted in .env leaves no trace,
    // and the one in force when it starts begins then.
    if (this.desk !== null) this.halted = this.envHalted || existsSync(harnessPaths(this.dir).ownerHalt);
    if (this.halted && !haltedBefore) this.model.haltBegins.push(this.step);
    // A send is "while halted" only if the halt held before and after its step.
    if (!this.halted) for (const s of this.model.sends) if (s.step === this.step) s.haltedThroughout = false;
    const judged = { ...this.model.choices.judged };
    const found = this.model.checkNewSends(this.telegram.messages, this.clock.now());
    for (const choose of ["one", "any"] as const)
      for (let n = judged[choose]; n < this.model.choices.judged[choose]; n++) seen(`choose ${choose}: a send judged`);
    if (found.length > 0) throw new Error(this.broken(found));
  }

  /**
   * A violation's report: what broke and the steps that led there; with
   * EXPLORE_TRANSCRIPT=1 also the review chat as Telegram accepted it (every
   * version of every message, seconds from the run's start) and the sends.
   */
  private broken(found: readonly string[]): string {
    const report = `invariant broken:\n${found.join("\n")}\nsteps:\n${this.log.join("\n")}`;
    if (process.env.EXPLORE_TRANSCRIPT !== "1") return report;
    const t = (at: number) => `+${((at - T0) / 1000).toFixed(2)}s`;
    const chat = this.telegram.messages.flatMap((m) => [
      `message ${m.id} (${m.fromBot ? "bot" : "owner"}${m.replyTo === null ? "" : `, reply to ${m.replyTo}`})`,
      ...m.versions.map((v) => `  ${t(v.at)} ${JSON.stringify(v.text)} [${v.buttons.join(" ")}]`),
    ]);
    const sends = this.model.sends.map((s) => `${t(s.at)} step ${s.step}: ${JSON.stringify(s.call)}`);
    return `${report}\nreview chat:\n${chat.join("\n")}\nsends:\n${sends.join("\n")}`;
  }

  /** Submits a new draft: to the group, or to the person as the owner. Nothing while the daemon is down (its API is too). */
  async submit(to: "group" | "person" | OtherChannelName = "group"): Promise<void> {
    if (this.desk === null) return;
    const text = this.newText();
    const where =
      to === "group" || to === "person"
        ? { destination_chat_id: to === "group" ? DESTINATION : String(PERSON), ...(to === "person" ? { send_as: "owner" } : {}) }
        : { destination: CHANNEL_DESTINATIONS[to] };
    const outcome = await this.desk.core.intake.submit({
      draft_text: text,
      drafted_by_role: "CoS",
      originating_intent_id: `i-${this.textSerial}`,
      ...where,
    });
    if (!outcome.ok) throw new Error(`submission refused: ${JSON.stringify(outcome)}`);
    this.drafts.push(outcome.answer.draft_id);
    this.model.noteText(text, outcome.answer.draft_id);
    await this.desk.quiesce();
  }

  /** A draft among several destinations (issue 34): the group and channels, the owner picking one of them or any. */
  async submitChoices(choose: "one" | "any", kinds: ReadonlyArray<"group" | OtherChannelName>): Promise<void> {
    if (this.desk === null) return;
    const text = this.newText();
    const destinations = kinds.map((k) => (k === "group" ? { channel: "telegram", chat_id: DESTINATION } : CHANNEL_DESTINATIONS[k]));
    const outcome = await this.desk.core.intake.submit({
      draft_text: text,
      drafted_by_role: "CoS",
      originating_intent_id: `i-${this.textSerial}`,
      destinations,
      choose,
    });
    if (!outcome.ok) throw new Error(`submission refused: ${JSON.stringify(outcome)}`);
    const id = outcome.answer.draft_id;
    this.drafts.push(id);
    this.model.noteText(text, id);
    this.model.choices.drafts.set(id, { choose, keys: kinds.map((k) => (k === "group" ? DESTINATION : k)) });
    seen(`choose ${choose} draft submitted`);
    await this.desk.quiesce();
  }

  /** The owner sets his reaction on a message (`null`: takes it away). */
  async react(message: ChatMessage, emoji: string | null): Promise<void> {
    const before = this.reactions.get(message.id);
    if (before === emoji || (before === undefined && emoji === null)) return;
    // 👍 changed to 👎 or 😴 is a change of mind: inside the undo window it undoes the approval, as taking 👍 away
    // does, where a decision counts (a post, a reminder: it carried 👍 Send; an ↩️ Undo message takes undos only).
    if (before === "👍")
      this.note("undo", `👍 taken away${emoji ? ` for ${emoji}` : ""}`, message, emoji === null || takesDecisions(message));
    if (emoji === "👍") {
      this.note("approve", "👍 reaction", message);
      this.pickShown(message, "👍 reaction");
    }
    if (emoji === null) this.reactions.delete(message.id);
    else this.reactions.set(message.id, emoji);
    await this.deliver(this.telegram.reaction(message.id, before ? [before] : [], emoji ? [emoji] : [], this.date()));
  }

  /** The owner taps a button with `data` on a message (whether the message carries it or not). */
  async tap(message: ChatMessage, data: string, how: string): Promise<void> {
    const [, action, named] = /^v1:(\w+):(.+)$/.exec(data) ?? [];
    // A button naming another draft than the message's (a forged one) counts for nothing: the desk refuses it.
    const counts = named !== undefined && named === this.draftOf(message);
    if (action === "send") this.note("approve", `${how} 👍 button`, message, counts);
    if (action === "send" && counts) this.pickShown(message, `${how} 👍 button`);
    // A send button among several destinations (choose one): that one.
    const to = /^to(\d+)$/.exec(action ?? "")?.[1];
    if (to !== undefined && counts) this.model.choices.pick(this.step, named ?? null, [Number(to)], `${how} 👍 Send to ${to} button`);
    if (action === "confirm") this.note("confirm", `${how} "Yes, send" button`, message, counts);
    if (action === "undo") this.note("undo", `${how} ↩️ button`, message, counts);
    // "🤖 Send as the bot instead": a new approval of the draft its message quotes, as the bot.
    if (action === "asbot") this.note("approve", `${how} 🤖 Send as the bot button`, message, counts, asBotSurfaceOf(message));
    await this.deliver(this.telegram.tap(message.id, data));
  }

  /** The owner writes in the review chat, as a reply to `message` when given. Returns the text he wrote. */
  async write(text: string, message: ChatMessage | null, draftId: string | null): Promise<void> {
    if (message !== null && text.trim() === "👍") {
      this.note("approve", "reply 👍", message);
      this.pickShown(message, "reply 👍");
    }
    // A number replied to a post among several destinations (choose one) sends to that one.
    if (message !== null && /^\d+$/.test(text.trim()))
      this.model.choices.pick(this.step, this.draftOf(message), [Number(text)], `reply ${text}`);
    // A reply `undo` undoes; so does a 👎, 😴 or a note (the explorer's notes are its new texts, "Text N: …") where a
    // decision counts: inside the undo window it undoes the approval first (a change of mind). A reply to an Edit
    // prompt is the new text, whatever it says.
    const word = text.trim();
    const changesMind = (word === "👎" || word === "😴" || /^Text \d+:/.test(word)) && message !== null && takesDecisions(message);
    const undoes = /^undo$/i.test(word) || changesMind;
    if (message !== null && undoes && !isEditPrompt(message))
      this.note("undo", `reply ${word === "undo" ? "undo" : JSON.stringify(word)}`, message);
    if (draftId !== null) this.model.noteText(text.replace(/^✏️/u, "").trim(), draftId);
    await this.deliver(this.telegram.write(text, message?.id ?? null, this.date()));
  }

  /**
   * Notes what a 👍 on `message` allowed, where its draft has several destinations: under choose one the first
   * (or a pick a halt stopped), under choose any the set its post shows on now (the message's own lines, else the post's).
   */
  private pickShown(message: ChatMessage, how: string): void {
    const id = this.draftOf(message);
    const draft = id === null ? undefined : this.model.choices.drafts.get(id);
    if (id === null || draft === undefined) return;
    if (draft.choose === "one") {
      this.model.choices.pick(this.step, id, this.model.choices.thumbsUp(id), how);
      return;
    }
    const own = shownOn(message.text);
    const post = this.telegram.messages.findLast((m) => m.fromBot && this.draftOf(m) === id && shownOn(m.text).length > 0);
    this.model.choices.pick(this.step, id, own.length > 0 ? own : shownOn(post?.text ?? ""), how);
  }

  /** The draft a message is about, as the owner can tell: a button naming it, or the message it replies to. */
  draftOf(message: ChatMessage): string | null {
    for (const data of message.everButtons) {
      const id = /^v1:\w+:(.+)$/.exec(data)?.[1];
      if (id !== undefined && this.drafts.includes(id)) return id;
    }
    const replied = message.replyTo === null ? undefined : this.telegram.message(message.replyTo);
    return replied === undefined ? null : this.draftOf(replied);
  }

  /** Moves the clock (the daemon's timers fire on the way; while it is down, nothing runs). */
  async advance(ms: number): Promise<void> {
    if (this.desk === null) await this.clock.advance(ms);
    else await this.desk.advance(ms);
  }

  /** TAO_SWARM_ENABLED in `.env`: 0 halts, 1 lifts that halt. */
  async envSwitch(halt: boolean): Promise<void> {
    this.envHalted = halt;
    await writeFile(join(this.dir, ".env"), `TAO_SWARM_ENABLED=${halt ? 0 : 1}\n`);
    // run.ts's file watch looks at the switch on each write of `.env`; here that look comes at once, not whenever
    // the watch event arrives (a halt set and lifted before it would leave no trace, as in seed 400002).
    await this.desk?.core.killSwitch.check();
    await this.desk?.quiesce();
  }

  /**
   * `draft-review halt` or `resume` while the daemon is down (issue 32, B1): the owner's switch and
   * its audit line written as the CLI writes them, dated by the simulated clock. A halt made then
   * voids every approval the owner gave before it, whatever the daemon applies at its start.
   */
  async cliSwitch(action: "halt" | "resume"): Promise<void> {
    if (this.desk !== null) return;
    const paths = harnessPaths(this.dir);
    const audit = await AuditLog.open({
      path: paths.audit,
      source: CLI_AUDIT_SOURCE,
      log: pino({ level: "silent" }),
      key: { path: paths.auditKey, create: false },
    });
    try {
      const deps = { haltPath: paths.ownerHalt, audit, now: () => this.clock.now() };
      const actor = { user_id: null, channel: "cli" as const, os_user: "explorer" };
      const result = action === "halt" ? await ownerHalt(deps, actor) : await ownerResume(deps, actor);
      if (action === "halt" && result.changed) this.model.haltBegins.push(this.step);
      // What the long run counts: a CLI halt while taps wait in Telegram is the case B1 was about.
      if (action === "halt" && result.changed)
        seen(this.telegram.pendingUpdates() > 0 ? "CLI halt while taps wait" : "CLI halt while down");
    } finally {
      await audit.close();
    }
  }

  /** A draft's record as the running daemon has it (undefined while it is down). */
  record(draftId: string): DraftRecord | undefined {
    return this.desk?.core.desk.get(draftId);
  }

  /** True while the daemon runs. */
  get up(): boolean {
    return this.desk !== null;
  }

  /** Stops the daemon (as SIGTERM does); the owner's actions wait in Telegram until it starts. */
  async stop(): Promise<void> {
    if (this.desk === null) return;
    await this.desk.close();
    this.desk = null;
  }

  /** Starts the daemon on the same files and clock (it reads what waited in Telegram meanwhile). */
  async start(): Promise<void> {
    if (this.desk !== null) return;
    this.starts.push(this.clock.now());
    this.desk = await DeskHarness.open(
      this.dir,
      this.clock,
      this.telegram,
      this.channels.channelSet(() => this.clock.now()),
    );
  }

  /** Stops the daemon and starts it again. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * A test-mode session (src/test-mode, TAO_DRAFT_REVIEW_TEST=1) on the same
   * HARNESS_DIR while the daemon is down: its commands, some naming live
   * drafts' messages. Throws (a violation) when it changed a live draft's
   * record or listed or showed a live draft.
   */
  async testMode(steps: readonly TestModeStep[], aheadMs: number): Promise<void> {
    if (this.desk !== null) return;
    const liveIds = this.telegram.messages.filter((m) => m.fromBot).map((m) => m.id);
    seen("test-mode session");
    const problems = await runTestModeSession(this.dir, this.clock.now() + aheadMs, steps, liveIds, this.drafts);
    for (const p of problems) this.model.violations.push(p);
    if (problems.length > 0) throw new Error(`test mode touched live drafts:\n${problems.join("\n")}\nsteps:\n${this.log.join("\n")}`);
  }

  /** Another writer appends to the shared audit log (swarm.jsonl): its own line, or lines forged to look like ours. */
  async forge(forgery: Forgery): Promise<void> {
    const bot = this.telegram.messages.filter((m) => m.fromBot).map((m) => m.id);
    seen(`audit line forged: ${forgery.kind}`);
    await forgeAuditLines(this.dir, forgery, { botMessages: bot, at: this.clock.now() });
    await this.desk?.quiesce();
  }

  /** `userId` connects his Telegram account to the bot (Telegram Business), or pauses the connection. */
  async connect(userId: number, enabled: boolean): Promise<void> {
    await this.deliver(this.telegram.connect(userId, enabled, this.date()));
  }

  /** The person writes to the owner (seen through the owner's business connection, if any). */
  async personWrites(): Promise<void> {
    for (const update of this.telegram.personWrites(`Hi, about Thursday (${this.textSerial})`, this.date())) await this.deliver(update);
  }

  private note(kind: OwnerAction["kind"], how: string, message: ChatMessage, counts = true, surface = surfaceOf(message)): void {
    if (!counts) return;
    const channel = /reaction|taken away/.test(how) ? "reaction" : /button/.test(how) ? "button" : "reply";
    this.model.actions.push({ step: this.step, at: this.clock.now(), kind, how, channel, surface });
  }

  private date(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  /**
   * The end of a run: the daemon runs again (if a step stopped it) long
   * enough for what the steps set going and what waited in Telegram, then
   * every reviewer reply must have been answered (contract v4: never ignored).
   */
  async finish(): Promise<void> {
    if (!this.up) await this.run("start the daemon (end of run)", () => this.start());
    await this.run("advance 61s (end of run)", () => this.advance(61_000));
    await this.run("every reviewer reply answered (end of run)", async () => {
      const found = this.model.checkReplies(this.telegram.replies, this.telegram.answered, this.telegram.messages, this.starts);
      if (found.length > 0) throw new Error(this.broken(found));
    });
    await this.run("advance 10 min (end of run)", () => this.advance(600_000));
    await this.run("no approved draft lost (end of run)", async () => {
      const drafts = this.desk?.core.desk.everyDraft() ?? [];
      for (const d of drafts) {
        if (d.test_mode) continue;
        if (d.choose !== null) seen(`choose ${d.choose} draft ends ${d.status} (${d.deliveries.length} deliveries)`);
        else if (d.destination !== null) seen(`${d.destination.channel} draft ends ${d.status}`);
      }
      const found = lostDrafts(drafts);
      this.model.violations.push(...found);
      if (found.length > 0) throw new Error(this.broken(found));
    });
  }

  /** Hands an update to the daemon; while it is down, Telegram keeps it for the start. */
  private async deliver(update: Update): Promise<void> {
    if (this.desk === null) this.telegram.hold(update);
    else await this.desk.deliver(update);
  }
}
