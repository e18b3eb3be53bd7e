import { afterEach, describe, expect, it } from "vitest";
import type { ChannelSendOutcome } from "../../src/channels/channel.js";
import { ChannelSet } from "../../src/channels/channel-set.js";
import { offlineChannels } from "../../src/channels/configured.js";
import type { DestinationLimiter } from "../../src/send/limiter.js";
import { openTestCore, REVIEWER, type TestCore } from "../support/core.js";

/**
 * The channel limiter counts a send's window from the service's answer when
 * the send path says the call was answered (sliding-limiter.ts): the send
 * path says so after the channel's call, before the outcome is written, and
 * never for a lost answer (its request may still arrive).
 */

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Slack as test mode has it, answering `outcome`; `events` records the call, the limiter's `answered` and the job's end. */
async function coreWithSlack(outcome: ChannelSendOutcome) {
  const events: string[] = [];
  let draftId = "";
  const offline = offlineChannels(() => Date.now());
  const slack = offline.get("slack")!;
  const channels = new ChannelSet(
    new Map([
      [
        "slack",
        {
          ...slack,
          send: async () => {
            events.push("call");
            return outcome;
          },
          findSent: async () => ({ kind: "unknown" as const, reason: "cannot tell" }),
        },
      ],
    ]),
  );
  const channelLimiter: DestinationLimiter = {
    schedule: (_key, work) =>
      work(() => {
        events.push(`answered while ${t!.core.desk.get(draftId)!.status}`);
      }).finally(() => events.push("job ended")),
    pause() {},
    async stop() {},
  };
  t = await openTestCore(undefined, { channels, channelLimiter });
  const submitted = await t.core.intake.submit({
    draft_text: "The mockups are ready.",
    destination: { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null },
    drafted_by_role: "CoS",
    originating_intent_id: "i-1",
  });
  if (!submitted.ok) throw new Error(`refused: ${JSON.stringify(submitted)}`);
  draftId = submitted.answer.draft_id;
  await t.core.desk.settle();
  await t.core.desk.decide({
    reviewChatId: t.core.desk.get(draftId)!.review_chat_id!,
    reviewMessageId: submitted.answer.review_message_id!,
    decision: "send",
    actor: { user_id: REVIEWER, channel: "button", emoji: null, update_id: null },
  });
  await t.core.desk.settle();
  return { events, status: t.core.desk.get(draftId)!.status };
}

describe("a send on another channel tells its limiter when the call was answered", () => {
  it("after the call's answer, before the outcome is on disk", async () => {
    const { events, status } = await coreWithSlack({ kind: "ok", sentRef: { channel: "C0DESIGN01", ts: "1.000001", permalink: null } });
    expect(events).toEqual(["call", "answered while sending", "job ended"]);
    expect(status).toBe("sent");
  });

  it("a refusal is an answer too", async () => {
    const { events, status } = await coreWithSlack({ kind: "refused", reason: "channel_not_found" });
    expect(events).toEqual(["call", "answered while sending", "job ended"]);
    expect(status).toBe("failed");
  });

  it("not for a lost answer: the window counts from the job's end", async () => {
    const { events, status } = await coreWithSlack({ kind: "unknown", reason: "socket hang up" });
    expect(events).toEqual(["call", "job ended"]);
    expect(status).toBe("outcome_unknown");
  });
});
