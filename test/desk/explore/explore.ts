import fc from "fast-check";
import type { OtherChannelName } from "../../../src/drafts/destination.js";
import { AUDIENCES, explorerSteps } from "./commands.js";
import { EXPLORED_CHANNELS } from "./fake-channels.js";
import { OWNER } from "./fake-telegram.js";
import { totals, World } from "./world.js";

/**
 * How a run begins: a draft to the group; or the owner's business connection, the person's message and a draft to them
 * as the owner; or a draft to Linear, email or Slack.
 */
type Opening = "group" | "business" | OtherChannelName;

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
  const opening = fc.constantFrom<Opening>("group", "group", "group", "business", "business", ...EXPLORED_CHANNELS);
  const property = fc.asyncProperty(fc.constantFrom(...Object.keys(AUDIENCES)), opening, steps, async (audience, start, sequence) => {
    totals.runs++;
    const world = await World.open(AUDIENCES[audience]!);
    try {
      // Every run starts with a draft awaiting a decision: to the group, or (business) to the person as the owner,
      // whose account is connected and to whom the person wrote.
      if (start === "business") {
        await world.run("the owner connects Telegram Business", () => world.connect(OWNER, true));
        await world.run("the person writes to the owner", () => world.personWrites());
      }
      await world.run(`submit${start === "group" ? "" : ` (${start})`}`, () => world.submit(start === "business" ? "person" : start));
      await fc.asyncModelRun(() => ({ model: {}, real: world }), sequence);
      await world.finish();
    } finally {
      await world.close();
    }
  });
  const result = await fc.check(property, { seed: options.seed, numRuns: options.numRuns });
  const failure = result.failed
    ? `seed ${result.seed}, path "${result.counterexamplePath}", audience at start: ${result.counterexample?.[0]}, opening: ${result.counterexample?.[1]}\n${(result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance)}`
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
