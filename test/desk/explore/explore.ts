import fc from "fast-check";
import type { OtherChannelName } from "../../../src/drafts/destination.js";
import { AUDIENCES, CHANNEL_SEND_PLANS, explorerSteps } from "./commands.js";
import { CHANNEL_AUDIENCES, type ChannelSendPlan, EXPLORED_CHANNELS, type LookupPlan } from "./fake-channels.js";
import { OWNER } from "./fake-telegram.js";
import { totals, World } from "./world.js";

/**
 * How a run begins: a draft to the group; or the owner's business connection, the person's message and a draft to them
 * as the owner; or a draft to Linear, email or Slack, whose service may start with another audience, not answering who
 * reads, or with the next send's or lookup's fault planned (so that the few sends of a run meet them).
 */
type Opening =
  | { readonly kind: "group" | "business" }
  | {
      readonly kind: OtherChannelName;
      readonly audience: string;
      readonly answering: boolean;
      readonly plan: ChannelSendPlan | null;
      readonly lookup: LookupPlan | null;
    };

const openings: fc.Arbitrary<Opening> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom("group", "group", "group", "business", "business").map((kind) => ({ kind })) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom(...EXPLORED_CHANNELS),
      audience: fc.constantFrom("small", "small", ...Object.keys(CHANNEL_AUDIENCES)),
      answering: fc.constantFrom(true, true, true, false),
      plan: fc.option(fc.constantFrom(...CHANNEL_SEND_PLANS), { freq: 2 }),
      lookup: fc.option(fc.constantFrom<LookupPlan>("unknown", "throws"), { freq: 3 }),
    }),
  },
);

/** The opening steps of a run, up to its draft awaiting a decision. */
async function open(world: World, start: Opening): Promise<void> {
  if (!("audience" in start)) {
    if (start.kind === "group") return world.run("submit", () => world.submit("group"));
    await world.run("the owner connects Telegram Business", () => world.connect(OWNER, true));
    await world.run("the person writes to the owner", () => world.personWrites());
    return world.run("submit (as the owner to the person)", () => world.submit("person"));
  }
  const { kind, audience, answering, plan, lookup } = start;
  const service = world.channels.service(kind);
  const setup = [`${kind} audience ${audience}`, ...(answering ? [] : ["not answering"])];
  if (plan !== null) setup.push(`next send ${plan}`);
  if (lookup !== null) setup.push(`next lookup ${lookup}`);
  await world.run(setup.join(", "), async () => {
    world.channels.setAudience(kind, audience);
    service.answering = answering;
    if (plan !== null) service.sendPlans.push(plan);
    if (lookup !== null) service.lookupPlans.push(lookup);
  });
  await world.run(`submit (${kind})`, () => world.submit(kind));
}

/** How long and from where the explorer runs. */
export interface ExploreOptions {
  readonly seed: number;
  readonly numRuns: number;
  /** Steps per run, at most. */
  readonly maxSteps: number;
  /** Step kinds left out (see explorerSteps), to look past a violation already known. */
  readonly skip?: ReadonlySet<string>;
}

/** What a run of the explorer found: how much it ran, and the shrunk counterexample if any. */
export interface ExploreReport {
  readonly runs: number;
  readonly steps: number;
  readonly failure: string | null;
}

/**
 * Runs random step sequences against a fresh daemon each (fast-check
 * `commands`), checking the invariant after every step; a violation is
 * shrunk to a short sequence and reported with the steps that led to it.
 */
export async function explore(options: ExploreOptions): Promise<ExploreReport> {
  const before = { ...totals };
  const steps = fc.commands(explorerSteps(options.skip), { maxCommands: options.maxSteps, size: "max" });
  const property = fc.asyncProperty(fc.constantFrom(...Object.keys(AUDIENCES)), openings, steps, async (audience, start, sequence) => {
    totals.runs++;
    const world = await World.open(AUDIENCES[audience]!);
    try {
      // Every run starts with a draft awaiting a decision.
      await open(world, start);
      await fc.asyncModelRun(() => ({ model: {}, real: world }), sequence);
      await world.finish();
    } finally {
      await world.close();
    }
  });
  const result = await fc.check(property, { seed: options.seed, numRuns: options.numRuns });
  const failure = result.failed
    ? `seed ${result.seed}, path "${result.counterexamplePath}", audience at start: ${result.counterexample?.[0]}, opening: ${JSON.stringify(result.counterexample?.[1])}\n${(result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance)}`
    : null;
  return { runs: totals.runs - before.runs, steps: totals.steps - before.steps, failure };
}

/** The first line of a violation with ids, steps and texts taken out: what kind of violation it is. */
export function violationKind(failure: string): string {
  const line = failure.split("\n").find((l) => l.startsWith("step ")) ?? failure;
  return line
    .replace(/step \d+/g, "step N")
    .replace(/"[^"]*"/g, "…")
    .replace(/message \d+/g, "message M")
    .replace(/\d+ members/g, "N members");
}
