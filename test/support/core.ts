import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { openCore, type Core, type CoreEdges } from "../../src/app/core.js";
import type { ChannelSet } from "../../src/channels/channel-set.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { loadConfig } from "../../src/config/config.js";
import type { AudienceSource } from "../../src/desk/ports.js";
import { resumeDrafts } from "../../src/desk/recovery.js";
import type { DestinationLimiter } from "../../src/send/limiter.js";
import { unlimited } from "../../src/send/limiter.js";
import type { SendMessageCall } from "../../src/channels/telegram/send-call.js";
import { FakeReviewChat } from "../../src/test-mode/fake-review-chat.js";
import { wallClockNow } from "./drafts.js";

/** The reviewer of an in-process core (test mode's default review chat user). */
export const REVIEWER = 100000001;

/** An in-process core on real files in a fresh temp dir, with a simulated clock (starting now) and recorded sends. */
export interface TestCore {
  readonly core: Core;
  readonly clock: SimulatedClock;
  readonly dir: string;
  readonly sends: Array<{ chatId: string; text: string }>;
  reopen(overrides?: Partial<TestCoreOptions>): Promise<TestCore>;
  close(): Promise<void>;
}

/** What may be replaced in an in-process core. */
export interface TestCoreOptions {
  readonly env: Record<string, string>;
  readonly sendCall: SendMessageCall;
  readonly limiter: DestinationLimiter;
  readonly reviewChat: CoreEdges["makeReviewChat"];
  readonly clock: SimulatedClock;
  /** Who will read each destination (intake and the send call's check); default none: not resolved, not checked. */
  readonly audience: AudienceSource;
  /** Run resumeDrafts after opening (as the daemon does). Default true. */
  readonly resume: boolean;
  /**
   * Make live drafts (config in live mode, with test mode's edges): for fixtures a live daemon reads
   * afterwards, which leaves drafts made in test mode alone. Default false: test mode's drafts.
   */
  readonly live: boolean;
  /** Linear, email and Slack (contract v5), and their limiter; default none. */
  readonly channels: ChannelSet;
  readonly channelLimiter: DestinationLimiter;
  /** Where the core logs; default silent. */
  readonly log: pino.Logger;
}

/** A live-mode configuration for an in-process core: the edges stay test mode's, only the drafts are live. */
const LIVE_ENV = { TELEGRAM_BOT_TOKEN: "123456789:in-process-core-token", REVIEW_CHAT_ID: "100000001" };

/** Opens the real core (store, audit log, desk, send path) on `dir`. */
export async function openTestCore(dir?: string, options: Partial<TestCoreOptions> = {}): Promise<TestCore> {
  const harness = dir ?? (await mkdtemp(join(tmpdir(), "draft-core-")));
  // Dated from now: a real daemon may read these files afterwards, on the real clock.
  const clock = options.clock ?? new SimulatedClock(wallClockNow());
  // UNDO_WINDOW=0 unless a test sets it: most tests look at what happens after the send.
  const mode = options.live === true ? LIVE_ENV : { TAO_DRAFT_REVIEW_TEST: "1" };
  const config = loadConfig({ ...mode, HARNESS_DIR: harness, UNDO_WINDOW: "0", ...options.env });
  const sends: Array<{ chatId: string; text: string }> = [];
  let nextId = 9000;
  const log = options.log ?? pino({ level: "silent" });
  const core = await openCore(config, log, {
    clock,
    makeReviewChat: options.reviewChat ?? ((existing, surfaces) => new FakeReviewChat(config.reviewChatId, existing, log, surfaces)),
    sendCall:
      options.sendCall ??
      (async ({ chatId, text }) => {
        sends.push({ chatId, text });
        return { kind: "ok", messageId: nextId++ };
      }),
    limiter: options.limiter ?? unlimited(),
    ...(options.audience ? { audience: options.audience } : {}),
    redact: null,
    processSwitchValue: options.env?.TAO_SWARM_ENABLED,
    envFilePath: join(harness, ".env"),
    ...(options.channels ? { channels: options.channels } : {}),
    ...(options.channelLimiter ? { channelLimiter: options.channelLimiter } : {}),
  });
  if (options.resume !== false) await resumeDrafts(core.desk);
  await core.desk.settle();
  const self: TestCore = {
    core,
    clock,
    dir: harness,
    sends,
    async reopen(overrides = {}) {
      await core.close();
      return openTestCore(harness, { ...options, clock, ...overrides });
    },
    close: () => core.close(),
  };
  return self;
}

/** A valid payload for the in-process core. */
export function corePayload(text: string, extra: Record<string, unknown> = {}) {
  return { draft_text: text, destination_chat_id: "-1001234567890", drafted_by_role: "CoS", originating_intent_id: "i-1", ...extra };
}

/** Submits through intake and returns the posted draft. */
export async function submitPosted(t: TestCore, text: string, extra: Record<string, unknown> = {}) {
  const outcome = await t.core.intake.submit(corePayload(text, extra));
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome)}`);
  await t.core.desk.settle();
  return t.core.desk.get(outcome.answer.draft_id)!;
}

/** Submits a draft, posts it, and has the reviewer send it back for revision with `note`: a final draft (`revise`). Resolves with its id. */
export async function submitRevised(t: TestCore, text: string, note = "shorter", extra: Record<string, unknown> = {}): Promise<string> {
  const d = await submitPosted(t, text, extra);
  await t.core.desk.decide({
    reviewChatId: d.review_chat_id!,
    reviewMessageId: d.review_message_id!,
    decision: "revise",
    note,
    actor: { user_id: REVIEWER, channel: "test", emoji: null, update_id: null },
  });
  await t.core.desk.settle();
  return d.draft_id;
}
