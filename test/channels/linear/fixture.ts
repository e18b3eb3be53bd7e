/**
 * A Linear channel wired to a fresh Linear double with a small workspace:
 * the viewer (Phill, the key's owner), Anna and Ben, a private team ENG of
 * the three, and issue ENG-1 that Phill and Anna are subscribed to.
 */
import { randomUUID } from "node:crypto";
import type { SendReference } from "../../../src/channels/channel.js";
import { createLinearChannel, type LinearDestination } from "../../../src/channels/linear/index.js";
import { type LinearDouble, startLinearDouble } from "../../doubles/linear/index.js";

/** Options of the channel under test. */
export interface FixtureOptions {
  readonly confirmOver?: number | null;
  readonly requestTimeoutMs?: number;
  readonly apiKey?: string;
  readonly apiUrl?: string;
}

/** Starts the double, seeds the workspace and builds the channel. Close with `linear.close()`. */
export async function linearFixture(opts: FixtureOptions = {}) {
  const linear: LinearDouble = await startLinearDouble();
  const w = linear.state.workspace;
  const owner = w.addUser({ name: "Phill Owner", displayName: "phill", email: "phill@example.com" }, { viewer: true });
  const anna = w.addUser({ name: "Anna Berg", displayName: "anna" });
  const ben = w.addUser({ name: "Ben Cho", displayName: "ben" });
  const eng = w.addTeam({ key: "ENG", name: "Engineering", visibility: "private", members: [owner, anna, ben] });
  const issue = w.addIssue(eng, { title: "Login fails on Safari", subscribers: [owner, anna] });
  const clock = { ms: Date.now() };
  const channel = (more: FixtureOptions = {}) => {
    const o = { ...opts, ...more };
    return createLinearChannel({
      config: { apiKey: o.apiKey ?? linear.apiKey, apiUrl: o.apiUrl ?? linear.url },
      now: () => clock.ms,
      confirmOver: o.confirmOver ?? null,
      requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
    });
  };
  const dest = (over: Partial<LinearDestination> = {}): LinearDestination => ({
    channel: "linear",
    issue: "ENG-1",
    parent_comment_id: null,
    ...over,
  });
  const ref = (reference: string = randomUUID()): SendReference => ({ draftId: "d-1", delivery: 1, reference });
  return { linear, w, owner, anna, ben, eng, issue, clock, channel, dest, ref };
}

/** The fixture's type, for `let` in tests. */
export type LinearFixture = Awaited<ReturnType<typeof linearFixture>>;
