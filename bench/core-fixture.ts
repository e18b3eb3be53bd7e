/**
 * An in-process core (real store, audit log, desk, intake, send path) in a temp
 * dir, with test mode's review chat (no network) and the send call of the
 * caller's choice: what the drain and in-process latency benchmarks run on.
 */
import { join } from "node:path";
import type { Api } from "grammy";
import { openCore, type Core } from "../src/app/core.js";
import type { ChannelSet } from "../src/channels/channel-set.js";
import type { Clock } from "../src/clock/clock.js";
import type { Config } from "../src/config/config.js";
import type { Logger } from "../src/log/logger.js";
import type { DestinationLimiter } from "../src/send/limiter.js";
import type { SendMessageCall } from "../src/channels/telegram/send-call.js";
import { telegramSendCall } from "../src/telegram/send-call.js";
import { FakeReviewChat } from "../src/test-mode/fake-review-chat.js";
import type { CallRecord, TelegramDouble } from "../test/telegram-double/index.js";
import { OWNER, draftText } from "./support.js";

/** What a benchmark core sends through; `channels` and `channelLimiter` add Linear, email and Slack (bench/channel-fixture.ts). */
export interface BenchEdges {
  readonly api: Api;
  readonly limiter: DestinationLimiter;
  readonly clock: Clock;
  readonly wrapCall?: (call: SendMessageCall) => SendMessageCall;
  readonly channels?: ChannelSet;
  readonly channelLimiter?: DestinationLimiter;
}

/** Opens a core whose sends go through `api` (grammY, against the double) and `limiter`; `wrapCall` may observe each call. */
export function openBenchCore(config: Config, log: Logger, edges: BenchEdges): Promise<Core> {
  const call = telegramSendCall(edges.api);
  return openCore(config, log, {
    clock: edges.clock,
    makeReviewChat: (existing) => new FakeReviewChat(config.reviewChatId, existing, log),
    sendCall: edges.wrapCall ? edges.wrapCall(call) : call,
    limiter: edges.limiter,
    redact: null,
    processSwitchValue: undefined,
    envFilePath: join(config.harnessDir, ".env"),
    ...(edges.channels ? { channels: edges.channels } : {}),
    ...(edges.channelLimiter ? { channelLimiter: edges.channelLimiter } : {}),
  });
}

/** A limiter that refuses every job: approved drafts stay approved on disk (the send path logs and gives up). */
export const holdEverything: DestinationLimiter = {
  schedule: () => Promise.reject(new Error("held for the benchmark")),
  pause() {},
  async stop() {},
};

/** A payload for `chatId`. */
export function payloadFor(chatId: number, i: number) {
  return {
    draft_text: draftText(i),
    destination_chat_id: String(chatId),
    destination_thread_id: null,
    drafted_by_role: "Scribe",
    originating_intent_id: `bench-intent-${i}`,
  };
}

/** Submits one draft per chat id (posted at once to the fake review chat); returns the review message ids in order. */
export async function submitPending(core: Core, chatIds: readonly number[], concurrency = 100): Promise<number[]> {
  const ids: number[] = new Array<number>(chatIds.length);
  for (let from = 0; from < chatIds.length; from += concurrency) {
    await Promise.all(
      chatIds.slice(from, from + concurrency).map(async (chatId, k) => {
        const outcome = await core.intake.submit(payloadFor(chatId, from + k));
        if (!outcome.ok || outcome.answer.review_message_id === null) throw new Error(`submit failed: ${JSON.stringify(outcome)}`);
        ids[from + k] = outcome.answer.review_message_id;
      }),
    );
  }
  return ids;
}

/** The reviewer approves the draft of `reviewMessageId`, as a reaction would. */
export function approve(core: Core, reviewMessageId: number) {
  return core.desk.decide({
    reviewChatId: String(OWNER),
    reviewMessageId,
    decision: "send",
    actor: { user_id: OWNER, channel: "reaction", emoji: "👍", update_id: null },
  });
}

/** True for a sendMessage the double accepted. */
export function acceptedSend(call: CallRecord): boolean {
  return call.method.toLowerCase() === "sendmessage" && call.outcome.kind === "ok";
}

/** How many of the awaited sends arrived, and when the last did (or when the wait gave up). */
export interface SendsSeen {
  readonly sent: number;
  /** Date.now() of the last arrival when all arrived, else of the give-up. */
  readonly at: number;
  readonly complete: boolean;
}

/**
 * Resolves once the double has accepted `count` sendMessage calls to
 * `chatIds`, or after `timeoutMs` with what arrived by then.
 */
export function waitForSends(double: TelegramDouble, chatIds: ReadonlySet<string>, count: number, timeoutMs: number): Promise<SendsSeen> {
  return new Promise((resolve) => {
    let seen = 0;
    let last = 0;
    const timer = setTimeout(() => {
      off();
      resolve({ sent: seen, at: Date.now(), complete: false });
    }, timeoutMs);
    const off = double.onCall((call) => {
      if (!acceptedSend(call) || !chatIds.has(String(call.params.chat_id))) return;
      seen++;
      last = Math.max(last, call.at);
      if (seen < count) return;
      clearTimeout(timer);
      off();
      resolve({ sent: seen, at: last, complete: true });
    });
  });
}
