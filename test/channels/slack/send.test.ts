import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SLACK_DEFAULT_RETRY_AFTER_SECONDS, SLACK_METADATA_EVENT_TYPE } from "../../../src/channels/slack/index.js";
import type { SlackDouble } from "../../doubles/slack/index.js";
import { BOT_TOKEN, C, channelFor, closedPort, OWNER, ref, startWorkspace, to, USER_TOKEN } from "./fixture.js";

let slack: SlackDouble;
beforeEach(async () => {
  slack = await startWorkspace();
});
afterEach(async () => {
  await slack.close();
});

describe("Slack send: what arrives", () => {
  it("posts the text byte for byte, once, with the draft's metadata, no unfurls, no parsing, and gives channel, ts and permalink", async () => {
    const text = "Hi *team* & <!channel> — ünïcödé 🎉\n\tline two <https://example.org|a link> #design @anna  ";
    const outcome = await channelFor(slack).send(to(C.design), text, ref(1));
    expect(outcome.kind).toBe("ok");
    const [message] = slack.messages(C.design);
    expect(message?.text).toBe(text);
    expect(Buffer.from(message!.text).equals(Buffer.from(text))).toBe(true);
    expect(message?.user).toBe(OWNER);
    expect(message?.metadata).toEqual({
      event_type: SLACK_METADATA_EVENT_TYPE,
      event_payload: { draft_id: "d-1", delivery: 1, reference: "ref-1-0f3c2a" },
    });
    expect(message?.postedWith).toMatchObject({ parse: "none", link_names: "false", unfurl_links: "false", unfurl_media: "false" });
    expect(message?.postedWith).not.toHaveProperty("thread_ts");
    expect(outcome).toEqual({
      kind: "ok",
      sentRef: {
        channel: C.design,
        ts: message!.ts,
        permalink: `https://acme.slack.com/archives/${C.design}/p${message!.ts.replace(".", "")}`,
      },
    });
    expect(slack.callCount("chat.postMessage")).toBe(1);
    const post = slack.received.find((r) => r.method === "chat.postMessage");
    expect(post?.contentType).toBe("application/x-www-form-urlencoded");
    expect(post?.bearer).toBe(true);
  });

  it("any text of whole Unicode characters arrives exactly as given (form-encoded by the library, read back by the double)", async () => {
    const channel = channelFor(slack);
    let n = 100;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", minLength: 1, maxLength: 120 }), async (text) => {
        n += 1;
        const outcome = await channel.send(to(C.design), text, ref(n));
        expect(outcome.kind).toBe("ok");
        expect(slack.messages(C.design).at(-1)?.text).toBe(text);
      }),
      { numRuns: 60 },
    );
  });

  it("posts in the thread when thread_ts is set, and as the app with a bot token", async () => {
    const parent = slack.seedMessage(C.secret, { text: "Launch plan?", user: OWNER });
    const outcome = await channelFor(slack, { token: BOT_TOKEN }).send(to(C.secret, parent), "In the thread.", ref(2));
    expect(outcome.kind).toBe("ok");
    const reply = slack.messages(C.secret).find((m) => m.thread_ts === parent);
    expect(reply).toMatchObject({ text: "In the thread.", bot_id: "B0DRAFTBOT" });
    expect(outcome.kind === "ok" && outcome.sentRef.permalink).toContain(`thread_ts=${parent}`);
  });

  it("is ok with a null permalink when chat.getPermalink fails", async () => {
    slack.failNext("chat.getPermalink", "internal_error");
    const outcome = await channelFor(slack).send(to(C.design), "hello", ref(3));
    expect(outcome).toMatchObject({ kind: "ok", sentRef: { channel: C.design, permalink: null } });
  });

  it("refuses a text over 40,000 characters, and a lone surrogate, without a call", async () => {
    const channel = channelFor(slack);
    expect(await channel.send(to(C.design), "x".repeat(40_001), ref(4))).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("40000"),
    });
    expect(await channel.send(to(C.design), "broken \uD83D here", ref(5))).toMatchObject({ kind: "refused" });
    expect(slack.callCount("chat.postMessage")).toBe(0);
    expect((await channel.send(to(C.design), "x".repeat(40_000), ref(6))).kind).toBe("ok");
  });
});

describe("Slack send: every documented error is its outcome kind", () => {
  it.each([
    ["channel_not_found", "C0NOWHERE1", "no such conversation"],
    ["not_in_channel", C.noBot, "not a member"],
    ["is_archived", C.archived, "archived"],
  ])("%s (answered by the double from its state) is refused in words", async (code, channel, words) => {
    const outcome = await channelFor(slack, { token: BOT_TOKEN }).send(to(channel), "hi", ref(7));
    expect(outcome).toEqual({ kind: "refused", reason: expect.stringContaining(code) });
    expect(outcome.kind === "refused" && outcome.reason).toContain(words);
  });

  it.each(["msg_too_long", "restricted_action", "missing_scope", "thread_not_found", "some_future_error"])(
    "%s is refused, once",
    async (code) => {
      slack.failNext("chat.postMessage", code);
      const outcome = await channelFor(slack).send(to(C.design), "hi", ref(8));
      expect(outcome).toEqual({ kind: "refused", reason: expect.stringContaining(code) });
      expect(slack.callCount("chat.postMessage")).toBe(1);
    },
  );

  it("missing_scope names the scope Slack says is needed", async () => {
    slack.failNext("chat.postMessage", "missing_scope", { extra: { needed: "chat:write", provided: "channels:read" } });
    const outcome = await channelFor(slack).send(to(C.design), "hi", ref(33));
    expect(outcome).toEqual({ kind: "refused", reason: expect.stringContaining("lacks the chat:write scope") });
  });

  it.each(["invalid_auth", "token_revoked", "account_inactive"])("%s says the token was refused", async (code) => {
    slack.failNext("chat.postMessage", code);
    const outcome = await channelFor(slack).send(to(C.design), "hi", ref(9));
    expect(outcome).toEqual({ kind: "refused", reason: expect.stringMatching(/refused the token.*SLACK_TOKEN/) });
  });

  it("a token Slack does not know is refused as invalid_auth, and the token is never in the reason", async () => {
    const wrong = "xoxp-9999999999-8888888888-7777777777-ffffffffffffffffff";
    const outcome = await channelFor(slack, { token: wrong }).send(to(C.design), "hi", ref(10));
    expect(outcome).toMatchObject({ kind: "refused", reason: expect.stringContaining("invalid_auth") });
    expect(JSON.stringify(outcome)).not.toContain(wrong);
    expect(JSON.stringify(outcome)).not.toContain(USER_TOKEN);
  });

  it("HTTP 429 with Retry-After is retry_after with its seconds; the library made one request and did not wait", async () => {
    slack.failNext("chat.postMessage", "ratelimited", { retryAfter: 7 });
    const started = Date.now();
    const outcome = await channelFor(slack).send(to(C.design), "hi", ref(11));
    expect(outcome).toEqual({ kind: "retry_after", seconds: 7, reason: expect.stringContaining("7 s") });
    expect(slack.callCount("chat.postMessage")).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slack.messages(C.design)).toHaveLength(0);
  });

  it("the double's own posting limit (one a second per conversation) comes back as retry_after, the message not posted", async () => {
    slack.state.perConversationMs = 1000;
    slack.state.perConversationBurst = 1;
    const channel = channelFor(slack);
    expect((await channel.send(to(C.design), "first", ref(30))).kind).toBe("ok");
    expect(await channel.send(to(C.design), "second", ref(31))).toMatchObject({ kind: "retry_after", seconds: 1 });
    expect((await channel.send(to(C.general), "elsewhere", ref(32))).kind).toBe("ok");
    expect(slack.messages(C.design).map((m) => m.text)).toEqual(["first"]);
    expect(slack.callCount("chat.postMessage")).toBe(3);
  });

  it("a 429 without a usable Retry-After waits the default, and a ratelimited answer with HTTP 200 too", async () => {
    slack.httpErrorNext("chat.postMessage", 429);
    expect(await channelFor(slack).send(to(C.design), "hi", ref(12))).toMatchObject({
      kind: "retry_after",
      seconds: SLACK_DEFAULT_RETRY_AFTER_SECONDS,
    });
    slack.failNext("chat.postMessage", "rate_limited", { status: 200, retryAfter: null });
    expect(await channelFor(slack).send(to(C.design), "hi", ref(13))).toMatchObject({
      kind: "retry_after",
      seconds: SLACK_DEFAULT_RETRY_AFTER_SECONDS,
    });
  });

  it.each(["internal_error", "fatal_error", "service_unavailable"])("%s may have posted: unknown, one request", async (code) => {
    slack.failNext("chat.postMessage", code);
    const outcome = await channelFor(slack).send(to(C.design), "hi", ref(14));
    expect(outcome).toMatchObject({ kind: "unknown", reason: expect.stringContaining(code) });
    expect(slack.callCount("chat.postMessage")).toBe(1);
  });

  it("request_timeout (Slack got the POST cut short) is not_sent", async () => {
    slack.failNext("chat.postMessage", "request_timeout");
    expect(await channelFor(slack).send(to(C.design), "hi", ref(15))).toMatchObject({ kind: "not_sent" });
  });

  it("HTTP 500 and 503 are unknown (the request reached Slack), after one request each", async () => {
    slack.httpErrorNext("chat.postMessage", 500);
    slack.httpErrorNext("chat.postMessage", 503);
    const channel = channelFor(slack);
    expect(await channel.send(to(C.design), "hi", ref(16))).toMatchObject({ kind: "unknown", reason: expect.stringContaining("HTTP 500") });
    expect(await channel.send(to(C.design), "hi", ref(17))).toMatchObject({ kind: "unknown", reason: expect.stringContaining("HTTP 503") });
    expect(slack.callCount("chat.postMessage")).toBe(2);
  });

  it("HTTP 404 (a wrong SLACK_API_URL) is refused naming the variable", async () => {
    const outcome = await channelFor(slack, { url: slack.url.replace("/api/", "/nope/") }).send(to(C.design), "hi", ref(18));
    expect(outcome).toMatchObject({ kind: "refused", reason: expect.stringContaining("SLACK_API_URL") });
  });

  it("connection refused is not_sent", async () => {
    const port = await closedPort();
    const outcome = await channelFor(slack, { url: `http://127.0.0.1:${port}/api/` }).send(to(C.design), "hi", ref(19));
    expect(outcome).toMatchObject({ kind: "not_sent", reason: expect.stringContaining("ECONNREFUSED") });
  });

  it("the answer lost after Slack stored the message is unknown, and the message is there once", async () => {
    slack.dropAfterHandling("chat.postMessage");
    const outcome = await channelFor(slack).send(to(C.design), "hi", ref(20));
    expect(outcome.kind).toBe("unknown");
    expect(slack.messages(C.design)).toHaveLength(1);
    expect(slack.callCount("chat.postMessage")).toBe(1);
  });

  it("a connection reset before Slack handled it is unknown too (the client cannot tell the two apart)", async () => {
    slack.resetBeforeHandling("chat.postMessage");
    expect((await channelFor(slack).send(to(C.design), "hi", ref(21))).kind).toBe("unknown");
    expect(slack.callCount("chat.postMessage")).toBe(1);
    expect(slack.messages(C.design)).toHaveLength(0);
  });

  it("no answer within the timeout is unknown, after one request", async () => {
    const held = slack.holdNext("chat.postMessage");
    const outcome = await channelFor(slack, { timeoutMs: 300 }).send(to(C.design), "hi", ref(22));
    held.release();
    expect(outcome).toMatchObject({ kind: "unknown", reason: expect.stringContaining("no answer in time") });
    expect(slack.callCount("chat.postMessage")).toBe(1);
  });
});
