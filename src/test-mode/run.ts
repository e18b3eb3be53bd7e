import { resolve } from "node:path";
import { openCore } from "../app/core.js";
import { SimulatedClock } from "../clock/simulated-clock.js";
import type { Config } from "../config/config.js";
import { resumeDrafts } from "../desk/recovery.js";
import type { Redactor } from "../desk/intake.js";
import type { Logger } from "../log/logger.js";
import { unlimited } from "../send/limiter.js";
import { offlineAudience } from "./offline-audience.js";
import { FakeReviewChat } from "./fake-review-chat.js";
import { runTestSession } from "./session.js";

/**
 * Test mode: the real desk, store, audit log, kill switch and send path, with
 * a simulated clock and a review chat and destination that exist only here.
 * Nothing touches the network.
 */
export async function runTestMode(
  config: Config,
  log: Logger,
  env: { processSwitchValue: string | undefined; redact: Redactor | null; secrets?: (string | null | undefined)[] },
): Promise<void> {
  const clock = new SimulatedClock(Date.now());
  let chat: FakeReviewChat | undefined;
  const core = await openCore(config, log, {
    clock,
    makeReviewChat: (existing) => (chat = new FakeReviewChat(config.reviewChatId, existing, log)),
    sendCall: async () => ({ kind: "ok", messageId: chat!.takeId() }),
    limiter: unlimited(),
    audience: offlineAudience(clock),
    redact: env.redact,
    processSwitchValue: env.processSwitchValue,
    ...(env.secrets ? { secrets: env.secrets } : {}),
    envFilePath: resolve(".env"),
  });
  try {
    await resumeDrafts(core.desk);
    await core.desk.settle();
    const reviewer = [...config.reviewerIds][0] ?? Number(config.reviewChatId);
    await runTestSession({ core, clock, defaultReviewerId: reviewer, input: process.stdin, output: process.stdout });
  } finally {
    await core.close();
  }
}
