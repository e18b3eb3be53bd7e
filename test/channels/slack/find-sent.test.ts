import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SLACK_METADATA_EVENT_TYPE } from "../../../src/channels/slack/index.js";
import type { SlackDouble } from "../../doubles/slack/index.js";
import { C, channelFor, OWNER, ref, startWorkspace, to } from "./fixture.js";

let slack: SlackDouble;
beforeEach(async () => {
  slack = await startWorkspace();
});
afterEach(async () => {
  await slack.close();
});

describe("Slack findSent after a lost answer", () => {
  it("finds the message the lost answer hid, by its metadata, with ts and permalink", async () => {
    const channel = channelFor(slack);
    slack.seedMessage(C.design, { text: "someone else", user: OWNER });
    slack.dropAfterHandling("chat.postMessage");
    expect((await channel.send(to(C.design), "the draft", ref(1))).kind).toBe("unknown");
    const stored = slack.messages(C.design).find((m) => m.text === "the draft")!;
    const found = await channel.findSent(to(C.design), ref(1));
    expect(found).toEqual({
      kind: "found",
      sentRef: {
        channel: C.design,
        ts: stored.ts,
        permalink: `https://acme.slack.com/archives/${C.design}/p${stored.ts.replace(".", "")}`,
      },
    });
    const read = slack.received.find((r) => r.method === "conversations.history");
    expect(read?.args).toMatchObject({ channel: C.design, include_all_metadata: "true" });
  });

  it("after a send of this process ended unknown, waits until it is findSentSettleMs old before it reads (a late landing is found)", async () => {
    let now = Date.now();
    const waits: number[] = [];
    const late = { event_type: SLACK_METADATA_EVENT_TYPE, event_payload: { draft_id: "d-11", delivery: 1, reference: ref(11).reference } };
    // Slack is still working on the request when the answer is lost: the message lands during the wait.
    const sleep = async (ms: number) => {
      waits.push(ms);
      now += ms;
      slack.seedMessage(C.design, { text: "late", user: OWNER, metadata: late });
    };
    const channel = channelFor(slack, { now: () => now, findSentSettleMs: 5_000, sleep });
    slack.resetBeforeHandling("chat.postMessage");
    expect((await channel.send(to(C.design), "late", ref(11))).kind).toBe("unknown");
    now += 1_200;
    expect((await channel.findSent(to(C.design), ref(11))).kind).toBe("found");
    expect(waits).toEqual([3_800]);
    expect((await channel.findSent(to(C.design), ref(12))).kind).toBe("absent");
    expect(waits).toHaveLength(1);
  });

  it("after a restart, waits from when the record says the send began (sendStartedAt)", async () => {
    const now = Date.now();
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const channel = channelFor(slack, { now: () => now, findSentSettleMs: 5_000, sleep, sendStartedAt: () => now - 2_000 });
    expect((await channel.findSent(to(C.design), ref(13))).kind).toBe("absent");
    expect(waits).toEqual([3_000]);
  });

  it("says absent after a complete read when the message never arrived (reset before Slack handled it)", async () => {
    const channel = channelFor(slack);
    await channel.send(to(C.design), "an earlier one", ref(2));
    slack.resetBeforeHandling("chat.postMessage");
    expect((await channel.send(to(C.design), "lost on the way", ref(3))).kind).toBe("unknown");
    expect(await channel.findSent(to(C.design), ref(3))).toEqual({ kind: "absent" });
  });

  it("looks in the thread with conversations.replies when thread_ts is set", async () => {
    const parent = slack.seedMessage(C.secret, { text: "Launch plan?", user: OWNER });
    const channel = channelFor(slack);
    slack.dropAfterHandling("chat.postMessage");
    await channel.send(to(C.secret, parent), "in the thread", ref(4));
    const found = await channel.findSent(to(C.secret, parent), ref(4));
    expect(found).toMatchObject({ kind: "found", sentRef: { channel: C.secret } });
    expect(slack.callCount("conversations.replies")).toBe(1);
    expect(slack.callCount("conversations.history")).toBe(0);
    expect(await channel.findSent(to(C.secret, parent), ref(5))).toEqual({ kind: "absent" });
  });

  it("is unknown when the read fails, never absent", async () => {
    const channel = channelFor(slack);
    slack.failNext("conversations.history", "internal_error");
    expect(await channel.findSent(to(C.design), ref(6))).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("internal_error"),
    });
    slack.failNext("conversations.history", "ratelimited", { retryAfter: 3 });
    expect((await channel.findSent(to(C.design), ref(6))).kind).toBe("unknown");
    slack.dropAfterHandling("conversations.history");
    expect((await channel.findSent(to(C.design), ref(6))).kind).toBe("unknown");
  });

  it("is unknown when a message of ours comes back without its payload (Slack withheld it): it could be the one", async () => {
    slack.seedMessage(C.design, { text: "the draft", user: OWNER, metadata: { event_type: SLACK_METADATA_EVENT_TYPE } as never });
    expect((await channelFor(slack).findSent(to(C.design), ref(7))).kind).toBe("unknown");
  });

  it("reads page after page, and says unknown when there are more pages than it may read", async () => {
    const channel = channelFor(slack, { findSentMaxPages: 5 });
    slack.dropAfterHandling("chat.postMessage");
    await channel.send(to(C.design), "the draft", ref(8));
    for (let i = 0; i < 450; i += 1) slack.seedMessage(C.design, { text: `chatter ${i}`, user: OWNER });
    expect((await channel.findSent(to(C.design), ref(8))).kind).toBe("found");
    expect(slack.callCount("conversations.history")).toBe(3);
    const short = channelFor(slack, { findSentMaxPages: 2 });
    expect(await short.findSent(to(C.design), ref(8))).toMatchObject({ kind: "unknown", reason: expect.stringContaining("too many") });
  });

  it("reads from a little before the send began when the caller says when (sendStartedAt)", async () => {
    const startedAt = Date.now() - 3_600_000;
    const channel = channelFor(slack, { sendStartedAt: (r) => (r.reference === ref(9).reference ? startedAt : null) });
    await channel.findSent(to(C.design), ref(9));
    const oldest = Number(slack.received.find((r) => r.method === "conversations.history")?.args.oldest);
    expect(oldest * 1000).toBeLessThan(startedAt);
    expect(oldest * 1000).toBeGreaterThan(startedAt - 30 * 60_000);
  });

  it("does not count a message older than its window", async () => {
    const old = (Date.now() - 10 * 24 * 3_600_000) / 1000;
    slack.seedMessage(C.design, {
      ts: old.toFixed(6),
      text: "long ago",
      user: OWNER,
      metadata: { event_type: SLACK_METADATA_EVENT_TYPE, event_payload: { draft_id: "d-10", delivery: 1, reference: ref(10).reference } },
    });
    expect(await channelFor(slack).findSent(to(C.design), ref(10))).toEqual({ kind: "absent" });
    expect((await channelFor(slack, { findSentLookbackMs: 30 * 24 * 3_600_000 }).findSent(to(C.design), ref(10))).kind).toBe("found");
  });
});
