import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { openCore } from "../app/core.js";
import { SimulatedClock } from "../clock/simulated-clock.js";
import type { Config } from "../config/config.js";
import { resumeDrafts } from "../desk/recovery.js";
import { countLiveDrafts } from "../desk/test-drafts.js";
import type { Redactor } from "../desk/intake.js";
import type { Logger } from "../log/logger.js";
import { unlimited } from "../send/limiter.js";
import { offlineChannels } from "../channels/configured.js";
import { offlineAudience } from "./offline-audience.js";
import { FakeReviewChat } from "./fake-review-chat.js";
import { runTestSession } from "./session.js";

/** Where a test-mode session reads and writes; main's defaults are the process's own. */
export interface TestModeIo {
  readonly input: Readable;
  readonly output: Writable;
  readonly stderr: Writable;
  /** The simulated clock, from the real now by default. */
  readonly clock: SimulatedClock;
  /** The `.env` the kill switch watches (default: the working directory's). */
  readonly envFilePath: string;
}

/**
 * Test mode: the real desk, store, audit log, kill switch and send path, with
 * a simulated clock and a review chat and destination that exist only here.
 * Nothing touches the network. `io` replaces the process's streams, clock or
 * `.env` (the explorer runs a session in-process on a live HARNESS_DIR).
 */
export async function runTestMode(
  config: Config,
  log: Logger,
  env: { processSwitchValue: string | undefined; redact: Redactor | null; secrets?: (string | null | undefined)[] },
  io: Partial<TestModeIo> = {},
): Promise<void> {
  const clock = io.clock ?? new SimulatedClock(Date.now());
  let chat: FakeReviewChat | undefined;
  const core = await openCore(config, log, {
    clock,
    makeReviewChat: (existing, surfaces) => (chat = new FakeReviewChat(config.reviewChatId, existing, log, surfaces)),
    sendCall: async () => ({ kind: "ok", messageId: chat!.takeId() }),
    limiter: unlimited(),
    // Every channel offline (contract v5): made-up audiences, nothing leaves this machine.
    channels: offlineChannels(() => clock.now()),
    audience: offlineAudience(clock),
    redact: env.redact,
    processSwitchValue: env.processSwitchValue,
    ...(env.secrets ? { secrets: env.secrets } : {}),
    envFilePath: io.envFilePath ?? resolve(".env"),
  });
  try {
    const live = countLiveDrafts(core.store.latest.values());
    if (live > 0) (io.stderr ?? process.stderr).write(`${liveDraftsLine(live, config.harnessDir)}\n`);
    await resumeDrafts(core.desk);
    await core.desk.settle();
    const reviewer = [...config.reviewerIds][0] ?? Number(config.reviewChatId);
    await runTestSession({
      core,
      clock,
      defaultReviewerId: reviewer,
      input: io.input ?? process.stdin,
      output: io.output ?? process.stdout,
    });
  } finally {
    await core.close();
  }
}

/** What test mode says at start when HARNESS_DIR holds live drafts (contract v4 "Test mode never touches live drafts"). */
export function liveDraftsLine(count: number, harnessDir: string): string {
  const drafts = count === 1 ? "1 live draft" : `${count} live drafts`;
  return (
    `draft-review test mode: leaving ${drafts} alone in ${harnessDir} (made without test mode): this run never lists, changes, ` +
    "posts, sends, expires or archives them, and does not archive its own drafts while they are there. Set HARNESS_DIR to keep test drafts apart."
  );
}
