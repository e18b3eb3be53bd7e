import fc from "fast-check";
import { OWNER, SECOND_REVIEWER, type ChatMessage, type ChatTruth, type SendOutcome } from "./fake-telegram.js";
import { CHANNEL_AUDIENCES, type ChannelSendPlan, EXPLORED_CHANNELS, type LookupPlan } from "./fake-channels.js";
import type { Forgery } from "./forgery.js";
import { isEditPrompt } from "./surface.js";
import type { TestModeStep } from "./test-mode-run.js";
import type { MessageKind, World } from "./world.js";

/** A step of the explorer: fast-check's async command over the world (the model lives inside it). */
type Step = fc.AsyncCommand<object, World>;

/** Which message a step acts on: one of the last few of a kind (any, review posts, questions, prompts, /resume questions), or any ever posted. */
interface Pick {
  readonly kind: MessageKind;
  readonly fromEnd: number;
}
const messagePick: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant<MessageKind>("any"), fromEnd: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<MessageKind>("any"), fromEnd: fc.nat(40) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom<MessageKind>("post", "question", "prompt", "resume", "reminder", "choice"),
      fromEnd: fc.nat(2),
    }),
  },
);
const named = (p: Pick) => (p.kind === "any" ? `${p.fromEnd}` : `${p.kind} ${p.fromEnd}`);

/** The audiences the destination can have: small, a few more, large, four times as large, public and large. */
export const AUDIENCES: Record<string, ChatTruth> = {
  small: { title: "Book club", username: null, members: 5 },
  few: { title: "Book club", username: null, members: 8 },
  large: { title: "Book club", username: null, members: 5000 },
  huge: { title: "Book club", username: null, members: 20_000 },
  public: { title: "Book club", username: "bookclub_open", members: 50_000 },
};

/** A step that acts on one message of the review chat; nothing happens while the chat is empty. */
abstract class OnMessage implements Step {
  constructor(readonly pick: Pick) {}
  check(): boolean {
    return true;
  }
  async run(_m: object, world: World): Promise<void> {
    const message = world.recent(this.pick.fromEnd, this.pick.kind);
    await world.run(`${this.toString()} → message ${message?.id ?? "none"}`, async () => {
      if (message !== undefined) await this.act(world, message);
    });
  }
  protected abstract act(world: World, message: ChatMessage): Promise<void>;
  abstract toString(): string;
}

class React extends OnMessage {
  constructor(
    pick: Pick,
    readonly emoji: string | null,
  ) {
    super(pick);
  }
  protected act(world: World, message: ChatMessage): Promise<void> {
    return world.react(message, this.emoji);
  }
  toString(): string {
    return this.emoji === null ? `unreact(${named(this.pick)})` : `react(${named(this.pick)}, ${this.emoji})`;
  }
}

class Tap extends OnMessage {
  constructor(
    pick: Pick,
    readonly button: number,
    readonly old: boolean,
  ) {
    super(pick);
  }
  protected async act(world: World, message: ChatMessage): Promise<void> {
    const gone = [...message.everButtons].filter((b) => !message.buttons.includes(b));
    const choices = this.old && gone.length > 0 ? gone : message.buttons;
    if (choices.length === 0) return;
    await world.tap(message, choices[this.button % choices.length]!, this.old ? "old" : "current");
  }
  toString(): string {
    return `tap(${named(this.pick)}, button ${this.button}${this.old ? ", old" : ""})`;
  }
}

class Forge extends OnMessage {
  constructor(
    pick: Pick,
    readonly draft: number,
    readonly action: string,
  ) {
    super(pick);
  }
  protected async act(world: World, message: ChatMessage): Promise<void> {
    if (this.action === "resume") return world.tap(message, `owner:resume:${this.draft.toString(16).padStart(16, "0")}`, "forged");
    if (world.drafts.length === 0) return;
    const id = world.drafts[world.drafts.length - 1 - (this.draft % world.drafts.length)]!;
    await world.tap(message, `v1:${this.action}:${id}`, "forged");
  }
  toString(): string {
    return `forge(${named(this.pick)}, ${this.action}, draft ${this.draft})`;
  }
}

class Reply extends OnMessage {
  constructor(
    pick: Pick,
    readonly kind: string,
  ) {
    super(pick);
  }
  protected act(world: World, message: ChatMessage): Promise<void> {
    const draft = world.draftOf(message);
    if (this.kind === "✏️") return world.write(`✏️ ${world.newText()}`, message, draft);
    if (this.kind === "text") return world.write(world.newText(), message, draft);
    return world.write(this.kind, message, null);
  }
  toString(): string {
    return `reply(${named(this.pick)}, ${this.kind})`;
  }
}

/** The owner's whole edit through the button: ✏️ Edit on a message, then the new text as a reply to the prompt that comes. */
class EditFlow extends OnMessage {
  protected async act(world: World, message: ChatMessage): Promise<void> {
    const button = message.buttons.find((b) => b.startsWith("v1:edit:"));
    if (button === undefined) return;
    await world.tap(message, button, "current");
    const prompt = world.recent(0);
    if (prompt !== undefined && isEditPrompt(prompt)) await world.write(world.newText(), prompt, world.draftOf(prompt));
  }
  toString(): string {
    return `edit(${named(this.pick)})`;
  }
}

/** After a 👍: "Yes, send" on the question it asks when it asks one (the review chat's pace lets it come), then the undo window passes. */
async function confirmAndWait(world: World): Promise<void> {
  await world.run("advance 2s", () => world.advance(2_000));
  const question = world.recent(0);
  const confirm = question?.buttons.find((b) => b.startsWith("v1:confirm:"));
  if (question !== undefined && confirm !== undefined)
    await world.run(`"Yes, send" → message ${question.id}`, () => world.tap(question, confirm, "current"));
  await world.run("advance 31s", () => world.advance(31_000));
}

/**
 * The owner's whole approval, as steps: 👍 Send on a post, "Yes, send" on the
 * question it asks when it asks one (the review chat's pace lets it come),
 * then the undo window passes. Sends are what the invariants judge, and
 * random single steps rarely line all of these up.
 */
class ApproveFlow implements Step {
  constructor(readonly pick: Pick) {}
  check(): boolean {
    return true;
  }
  async run(_m: object, world: World): Promise<void> {
    const post = world.recent(this.pick.fromEnd, "post");
    const send = post?.buttons.find((b) => b.startsWith("v1:send:"));
    await world.run(`approve(${named(this.pick)}) → message ${post?.id ?? "none"}`, async () => {
      if (post !== undefined && send !== undefined) await world.tap(post, send, "current");
    });
    await confirmAndWait(world);
  }
  toString(): string {
    return `approve(${named(this.pick)})`;
  }
}

/**
 * The owner's pick among several destinations, as steps (issue 34): on a
 * choose-one post a tap on one destination's send button, on a choose-any
 * post a few toggles and then 👍 Send (to those on); "Yes, send" when it is
 * asked; then the undo window passes and the deliveries are made.
 */
class ChoiceFlow implements Step {
  constructor(
    readonly fromEnd: number,
    readonly which: number,
    readonly toggles: readonly number[],
  ) {}
  check(): boolean {
    return true;
  }
  async run(_m: object, world: World): Promise<void> {
    const post = world.recent(this.fromEnd, "choice");
    if (post === undefined) return;
    const sends = post.buttons.filter((b) => b.startsWith("v1:to"));
    if (sends.length > 0) {
      const send = sends[this.which % sends.length]!;
      await world.run(`pick ${send.split(":")[1]} → message ${post.id}`, () => world.tap(post, send, "current"));
    } else {
      for (const t of this.toggles) {
        const toggle = post.buttons.find((b) => b.startsWith(`v1:tg${t}:`));
        if (toggle !== undefined) await world.run(`toggle ${t} → message ${post.id}`, () => world.tap(post, toggle, "current"));
      }
      const send = post.buttons.find((b) => b.startsWith("v1:send:"));
      if (send !== undefined) await world.run(`👍 Send to those on → message ${post.id}`, () => world.tap(post, send, "current"));
    }
    await confirmAndWait(world);
  }
  toString(): string {
    return `choose(${this.fromEnd}, ${this.which}, toggles ${this.toggles.join(",") || "none"})`;
  }
}

/** A step that is not about one message. */
class Plain implements Step {
  constructor(
    readonly name: string,
    readonly act: (world: World) => Promise<void>,
  ) {}
  check(): boolean {
    return true;
  }
  async run(_m: object, world: World): Promise<void> {
    await world.run(this.name, () => this.act(world));
  }
  toString(): string {
    return this.name;
  }
}

/** A few commands of a test-mode session on the live files: lists, moves of its clock, and decisions on the live drafts' messages. */
const testModeSteps: fc.Arbitrary<TestModeStep[]> = fc.array(
  fc.oneof(
    fc.constant<TestModeStep>({ cmd: "list" }),
    fc.constant<TestModeStep>({ cmd: "submit" }),
    fc.constantFrom<string | null>(null, "1m", "2h", "3d").map((by): TestModeStep => ({ cmd: "advance", by })),
    fc
      .tuple(fc.nat(6), fc.constantFrom("👍", "👎", "😴"), fc.boolean())
      .map(([pick, emoji, un]): TestModeStep => ({ cmd: un && emoji !== "😴" ? "unreact" : "react", pick, emoji })),
    fc
      .tuple(fc.nat(6), fc.constantFrom("ok", "undo", "mention the projector"))
      .map(([pick, text]): TestModeStep => ({ cmd: "reply", pick, text })),
    fc.nat(6).map((pick): TestModeStep => ({ cmd: "keep", pick })),
    fc.nat(6).map((pick): TestModeStep => ({ cmd: "get", pick })),
  ),
  { minLength: 1, maxLength: 6 },
);

/** What another writer appends to swarm.jsonl (see Forgery). */
const forgeries: fc.Arbitrary<Forgery> = fc.oneof(
  fc.constantFrom<Forgery>({ kind: "foreign" }, { kind: "torn" }, { kind: "resume" }, { kind: "connection" }),
  fc
    .tuple(fc.nat(5), fc.constantFrom("decide", "ask", "confirm", "undo", "asbot"))
    .map(([pick, asks]): Forgery => ({ kind: "surface", pick, asks })),
  fc.nat(3).map((pick): Forgery => ({ kind: "approve", pick })),
);

const SECOND = 1000;
const advances = [1 * SECOND, 10 * SECOND, 31 * SECOND, 61 * SECOND, 20 * 60 * SECOND, 3 * 3600 * SECOND];
const outcomes: SendOutcome[] = ["not_sent", "unknown", "retry_after", "refused"];

const channelName = fc.constantFrom(...EXPLORED_CHANNELS);
/** The faults a channel's next send can be planned with (a lost answer before the message arrived twice as often). */
export const CHANNEL_SEND_PLANS: readonly ChannelSendPlan[] = [
  "refused",
  "retry_after",
  "not_sent",
  "lost_arrived",
  "lost_absent",
  "lost_absent",
  "throws",
];

/**
 * Steps on Linear, email and Slack: a draft to one, its audience changed (between post and send), its service not
 * answering who reads it, the next send refused / rate limited / not sent / its answer lost (the message there or not),
 * the next lookup after a lost answer unable to tell.
 */
function channelSteps(): Array<[string, number, fc.Arbitrary<Step>]> {
  return [
    ["channel", 3, channelName.map((name) => new Plain(`submit to ${name}`, (world) => world.submit(name)))],
    [
      "chaudience",
      2,
      fc
        .tuple(channelName, fc.constantFrom(...Object.keys(CHANNEL_AUDIENCES)))
        .map(([name, a]) => new Plain(`${name} audience ${a}`, async (world) => world.channels.setAudience(name, a))),
    ],
    [
      "chanswer",
      1,
      fc
        .tuple(channelName, fc.boolean())
        .map(
          ([name, up]) =>
            new Plain(
              `${name} ${up ? "answers" : "does not answer"} who reads`,
              async (world) => void (world.channels.service(name).answering = up),
            ),
        ),
    ],
    [
      "chsend",
      2,
      fc
        .tuple(channelName, fc.constantFrom(...CHANNEL_SEND_PLANS))
        .map(
          ([name, plan]) => new Plain(`next ${name} send ${plan}`, async (world) => void world.channels.service(name).sendPlans.push(plan)),
        ),
    ],
    [
      "chcreds",
      1,
      fc
        .tuple(channelName, fc.boolean())
        .map(
          ([name, refused]) =>
            new Plain(
              `${name} ${refused ? "refuses" : "accepts"} the credentials (from the next start)`,
              async (world) => void (world.channels.service(name).credentialsRefused = refused),
            ),
        ),
    ],
    [
      "chlookup",
      1,
      fc
        .tuple(channelName, fc.constantFrom<LookupPlan>("unknown", "throws"))
        .map(
          ([name, plan]) =>
            new Plain(`next ${name} lookup ${plan}`, async (world) => void world.channels.service(name).lookupPlans.push(plan)),
        ),
    ],
  ];
}

/** A draft among 2-4 destinations (the group and the channels, in any order), the owner to pick one or any (issue 34). */
const choiceSubmissions: fc.Arbitrary<Step> = fc
  .tuple(
    fc.constantFrom<"one" | "any">("one", "any"),
    fc.shuffledSubarray<"group" | (typeof EXPLORED_CHANNELS)[number]>(["group", ...EXPLORED_CHANNELS], { minLength: 2, maxLength: 4 }),
  )
  .map(([choose, kinds]) => new Plain(`submit to choose ${choose} of ${kinds.join(", ")}`, (world) => world.submitChoices(choose, kinds)));

/** Every kind of step, weighted towards the owner's actions; `skip` leaves kinds out (by name: "forge", "restart", ...). */
export function explorerSteps(skip: ReadonlySet<string> = new Set()): fc.Arbitrary<Step>[] {
  const all: Array<[string, number, fc.Arbitrary<Step>]> = [
    ["submit", 4, fc.constant(new Plain("submit", (world) => world.submit()))],
    ["person", 1, fc.constant(new Plain("submit as the owner to the person", (world) => world.submit("person")))],
    ["choices", 3, choiceSubmissions],
    ["person", 1, fc.constant(new Plain("the person writes to the owner", (world) => world.personWrites()))],
    [
      "connect",
      1,
      fc
        .tuple(fc.constantFrom(OWNER, SECOND_REVIEWER), fc.boolean())
        .map(
          ([user, on]) =>
            new Plain(`${user === OWNER ? "the owner" : "the second reviewer"} ${on ? "connects" : "pauses"} Telegram Business`, (world) =>
              world.connect(user, on),
            ),
        ),
    ],
    ["audit", 1, forgeries.map((f) => new Plain(`another writer appends to swarm.jsonl: ${JSON.stringify(f)}`, (world) => world.forge(f)))],
    ["react", 6, fc.tuple(messagePick, fc.constantFrom("👍", "👍", "👍", "👍", "👎", "😴", null, null)).map(([m, e]) => new React(m, e))],
    ["tap", 6, fc.tuple(messagePick, fc.oneof(fc.constant(0), fc.nat(5)), fc.boolean()).map(([m, b, old]) => new Tap(m, b, old))],
    [
      "forge",
      2,
      fc.tuple(messagePick, fc.nat(3), fc.constantFrom("send", "confirm", "undo", "edit", "resume")).map(([m, d, a]) => new Forge(m, d, a)),
    ],
    ["edit", 3, messagePick.map((m) => new EditFlow(m))],
    ["approve", 3, fc.nat(2).map((fromEnd) => new ApproveFlow({ kind: "post", fromEnd }))],
    ["reply", 4, fc.tuple(messagePick, fc.constantFrom("👍", "👍", "👎", "😴", "undo", "✏️", "✏️", "text")).map(([m, k]) => new Reply(m, k))],
    [
      "choices",
      3,
      fc
        .tuple(fc.nat(2), fc.nat(3), fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }))
        .map(([fromEnd, which, toggles]) => new ChoiceFlow(fromEnd, which, toggles)),
    ],
    // A number replied to a post among several destinations (one out of range).
    ["choices", 1, fc.tuple(messagePick, fc.constantFrom("1", "2", "3", "7")).map(([m, k]) => new Reply(m, k))],
    ["halt", 1, fc.constant(new Plain("/halt", (world) => world.write("/halt", null, null)))],
    ["resume", 1, fc.constant(new Plain("/resume", (world) => world.write("/resume", null, null)))],
    ["env", 1, fc.boolean().map((halt) => new Plain(`.env TAO_SWARM_ENABLED=${halt ? 0 : 1}`, (world) => world.envSwitch(halt)))],
    ["advance", 5, fc.constantFrom(...advances).map((ms) => new Plain(`advance ${ms / SECOND}s`, (world) => world.advance(ms)))],
    [
      "audience",
      2,
      fc
        .constantFrom(...Object.keys(AUDIENCES))
        .map((name) => new Plain(`audience ${name}`, async (world) => void (world.telegram.truth = AUDIENCES[name]!))),
    ],
    [
      "answering",
      2,
      fc
        .boolean()
        .map(
          (up) => new Plain(`audience ${up ? "answers" : "not answering"}`, async (world) => void (world.telegram.audienceAnswering = up)),
        ),
    ],
    [
      "count",
      1,
      fc
        .boolean()
        .map(
          (up) => new Plain(`member count ${up ? "answers" : "not answering"}`, async (world) => void (world.telegram.countAnswering = up)),
        ),
    ],
    [
      "sendfail",
      1,
      fc.constantFrom(...outcomes).map((o) => new Plain(`next send ${o}`, async (world) => void world.telegram.sendOutcomes.push(o))),
    ],
    ...channelSteps(),
    [
      "clihalt",
      1,
      fc
        .constantFrom("halt" as const, "resume" as const)
        .map((action) => new Plain(`draft-review ${action} (if the daemon is down)`, (world) => world.cliSwitch(action))),
    ],
    ["restart", 1, fc.constant(new Plain("restart", (world) => world.restart()))],
    ["stop", 1, fc.constant(new Plain("stop the daemon", (world) => world.stop()))],
    ["stop", 1, fc.constant(new Plain("start the daemon", (world) => world.start()))],
    [
      "testmode",
      1,
      fc.tuple(testModeSteps, fc.constantFrom(0, 3_600_000, 3 * 86_400_000)).map(
        ([steps, ahead]) =>
          new Plain(`test mode on the same files (its clock +${ahead / 3_600_000}h): ${JSON.stringify(steps)}`, async (world) => {
            const wasUp = world.up;
            await world.stop();
            await world.testMode(steps, ahead);
            if (wasUp) await world.start();
          }),
      ),
    ],
  ];
  return [fc.oneof(...all.filter(([name]) => !skip.has(name)).map(([, weight, arbitrary]) => ({ weight, arbitrary })))];
}
