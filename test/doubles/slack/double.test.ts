import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SlackDouble, startSlackDouble } from "./index.js";

const TOKEN = "xoxb-1111111111-4444444444-ABCDEFabcdefABCDEF";
const ME = "U0BOTUSER1";
let slack: SlackDouble;

beforeEach(async () => {
  slack = await startSlackDouble();
  slack.addToken({ userId: ME, userName: "draftbot", botId: "B0DRAFTBOT" }, TOKEN);
  slack.addConversation({ id: "C0DESIGN01", name: "design", kind: "public", members: [ME, "U0ANNA0001"] });
  slack.addConversation({ id: "C0RANDOM01", name: "random", kind: "public", members: ["U0ANNA0001"] });
});
afterEach(async () => {
  await slack.close();
});

async function call(
  method: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; retryAfter: string | null; json: Record<string, unknown> }> {
  const res = await fetch(`${slack.url}${method}`, { method: "POST", body, headers });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), json: (await res.json()) as Record<string, unknown> };
}
const json = (method: string, args: object, token: string | null = TOKEN) =>
  call(method, JSON.stringify(args), {
    "Content-Type": "application/json; charset=utf-8",
    ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
  });
const form = (method: string, args: Record<string, string>) =>
  call(method, new URLSearchParams(args).toString(), { "Content-Type": "application/x-www-form-urlencoded" });

describe("Slack double: bodies and tokens", () => {
  it("takes a JSON body with real values and a form body with the token as an argument", async () => {
    const a = await json("chat.postMessage", {
      channel: "C0DESIGN01",
      text: "by JSON",
      metadata: { event_type: "t", event_payload: { n: 1 } },
    });
    expect(a.json).toMatchObject({ ok: true, channel: "C0DESIGN01" });
    const b = await form("chat.postMessage", {
      token: TOKEN,
      channel: "C0DESIGN01",
      text: "by form",
      metadata: '{"event_type":"t","event_payload":{"n":2}}',
    });
    expect(b.json).toMatchObject({ ok: true });
    expect(slack.messages("C0DESIGN01").map((m) => [m.text, m.metadata?.event_payload])).toEqual([
      ["by JSON", { n: 1 }],
      ["by form", { n: 2 }],
    ]);
    expect(slack.received.map((r) => r.contentType.split(";")[0])).toEqual(["application/json", "application/x-www-form-urlencoded"]);
    expect(JSON.stringify(slack.received)).not.toContain(TOKEN);
  });

  it("answers not_authed, invalid_auth and token_revoked as Slack does", async () => {
    expect((await json("auth.test", {}, null)).json).toEqual({ ok: false, error: "not_authed" });
    expect((await json("auth.test", {}, "xoxb-nope")).json).toEqual({ ok: false, error: "invalid_auth" });
    slack.state.revokedTokens.add(TOKEN);
    expect((await json("auth.test", {})).json).toEqual({ ok: false, error: "token_revoked" });
  });

  it("checks arguments: missing, malformed, unknown method, bad body", async () => {
    expect((await json("chat.postMessage", { text: "x" })).json.error).toBe("invalid_arguments");
    expect((await json("chat.postMessage", { channel: "C0DESIGN01" })).json.error).toBe("no_text");
    expect((await json("chat.postMessage", { channel: "C0DESIGN01", text: "x".repeat(40_001) })).json.error).toBe("msg_too_long");
    expect((await json("chat.postMessage", { channel: "C0RANDOM01", text: "x" })).json.error).toBe("not_in_channel");
    expect((await json("chat.postMessage", { channel: "C0NOWHERE1", text: "x" })).json.error).toBe("channel_not_found");
    expect((await json("chat.postMessage", { channel: "C0DESIGN01", text: "x", thread_ts: "1.000001" })).json.error).toBe(
      "thread_not_found",
    );
    expect((await form("chat.postMessage", { token: TOKEN, channel: "C0DESIGN01", text: "x", metadata: "{nope" })).json.error).toBe(
      "invalid_metadata_format",
    );
    expect((await json("chat.postMessage", { channel: "C0DESIGN01", text: "x", metadata: { event_type: 3 } })).json.error).toBe(
      "invalid_metadata_schema",
    );
    expect((await json("chat.nothing", {})).json.error).toBe("unknown_method");
    expect((await call("auth.test", "{", { "Content-Type": "application/json", Authorization: `Bearer ${TOKEN}` })).json.error).toBe(
      "invalid_json",
    );
    expect((await call("auth.test", "x", { "Content-Type": "text/plain", Authorization: `Bearer ${TOKEN}` })).json.error).toBe(
      "invalid_post_type",
    );
    slack.state.conversations.get("C0DESIGN01")!.archived = true;
    expect((await json("chat.postMessage", { channel: "C0DESIGN01", text: "x" })).json.error).toBe("is_archived");
  });

  it("returns metadata in history and replies only with include_all_metadata", async () => {
    await json("chat.postMessage", { channel: "C0DESIGN01", text: "m", metadata: { event_type: "t", event_payload: { n: 1 } } });
    const plain = await json("conversations.history", { channel: "C0DESIGN01" });
    expect((plain.json.messages as object[])[0]).not.toHaveProperty("metadata");
    const full = await form("conversations.history", { token: TOKEN, channel: "C0DESIGN01", include_all_metadata: "true" });
    expect((full.json.messages as object[])[0]).toMatchObject({ text: "m", metadata: { event_type: "t", event_payload: { n: 1 } } });
  });
});

describe("Slack double: rate limit and faults", () => {
  it("enforces one message a second per conversation, after a short burst, with a 429 and Retry-After", async () => {
    let now = Date.now();
    await slack.close();
    slack = await startSlackDouble({ now: () => now });
    slack.addToken({ userId: ME, userName: "draftbot" }, TOKEN);
    slack.addConversation({ id: "C0DESIGN01", name: "design", kind: "public", members: [ME] });
    slack.addConversation({ id: "C0OTHER001", name: "other", kind: "public", members: [ME] });
    slack.state.perConversationMs = 1000;
    slack.state.perConversationBurst = 2;
    const post = (channel = "C0DESIGN01") => json("chat.postMessage", { channel, text: "m" });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    expect(await post()).toMatchObject({ status: 429, retryAfter: "1", json: { ok: false, error: "ratelimited" } });
    expect((await post("C0OTHER001")).status).toBe(200);
    now += 1000;
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
    // A sender that waited for the bucket to refill and then keeps to the interval, give or take 40 ms.
    now += 2000;
    for (let i = 0; i < 10; i += 1) {
      now += 1000 + (i % 2 === 0 ? -40 : 40);
      expect((await post()).status).toBe(200);
    }
    expect(slack.state.rateLimited.get("chat.postMessage")).toBe(2);
    expect(slack.messages("C0DESIGN01")).toHaveLength(13);
  });

  it("fails the next call with an error, a 429 or an HTTP status, then answers normally", async () => {
    slack.failNext("auth.test", "internal_error");
    slack.failNext("auth.test", "ratelimited", { retryAfter: 9 });
    slack.httpErrorNext("auth.test", 503);
    expect(await json("auth.test", {})).toMatchObject({ status: 200, json: { ok: false, error: "internal_error" } });
    expect(await json("auth.test", {})).toMatchObject({ status: 429, retryAfter: "9", json: { error: "ratelimited" } });
    expect((await fetch(`${slack.url}auth.test`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(503);
    expect((await json("auth.test", {})).json).toMatchObject({ ok: true, user_id: ME, bot_id: "B0DRAFTBOT" });
    expect(slack.callCount("auth.test")).toBe(4);
  });

  it("stores the message and destroys the socket (the lost answer), or destroys it first", async () => {
    slack.dropAfterHandling("chat.postMessage");
    await expect(json("chat.postMessage", { channel: "C0DESIGN01", text: "kept" })).rejects.toThrow();
    slack.resetBeforeHandling("chat.postMessage");
    await expect(json("chat.postMessage", { channel: "C0DESIGN01", text: "never" })).rejects.toThrow();
    expect(slack.messages("C0DESIGN01").map((m) => m.text)).toEqual(["kept"]);
  });

  it("holds an answer until released, the call already handled", async () => {
    const held = slack.holdNext("chat.postMessage");
    const answer = json("chat.postMessage", { channel: "C0DESIGN01", text: "held" });
    await held.handled;
    expect(slack.messages("C0DESIGN01")).toHaveLength(1);
    held.release();
    expect((await answer).json).toMatchObject({ ok: true });
  });
});
