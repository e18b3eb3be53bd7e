import { Api, GrammyError, HttpError } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramDouble, type TelegramDouble } from "./index.js";

const REVIEWER = 111;
const GROUP = -1001234567890;

let double: TelegramDouble;
let api: Api;

beforeEach(async () => {
  double = await startTelegramDouble({
    chats: [
      { id: REVIEWER, type: "private" },
      { id: GROUP, type: "supergroup" },
    ],
  });
  api = new Api(double.token, { apiRoot: double.url });
});
afterEach(() => double.stop());

const settle = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (v) => v,
    (e: unknown) => e,
  );
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("rate limits (off by default)", () => {
  it("sends freely when off", async () => {
    for (let i = 0; i < 5; i++) await api.sendMessage(REVIEWER, `m${i}`);
    expect(double.tooManyRequestsCount).toBe(0);
  });

  it("allows one message per second in a chat, answers 429 with retry_after, and counts them", async () => {
    double.setRateLimits({ timeScale: 0.1 }); // one Telegram second = 100 ms
    await api.sendMessage(REVIEWER, "first");
    const e = (await settle(api.sendMessage(REVIEWER, "too soon"))) as GrammyError;
    expect(e).toBeInstanceOf(GrammyError);
    expect([e.error_code, e.description, e.parameters.retry_after]).toEqual([429, "Too Many Requests: retry after 1", 1]);
    await sleep(110);
    await api.sendMessage(REVIEWER, "after waiting");
    expect(double.messages(REVIEWER).map((m) => m.text)).toEqual(["first", "after waiting"]);
    expect(double.tooManyRequestsCount).toBe(1);
  });

  it("allows twenty messages a minute in a group", async () => {
    // One minute = 12 s, one second = 200 ms: the 20 messages take about 4 s, well inside the minute on a loaded machine.
    double.setRateLimits({ timeScale: 0.2 });
    for (let i = 0; i < 20; i++) {
      await api.sendMessage(GROUP, `m${i}`);
      await sleep(201);
    }
    const e = (await settle(api.sendMessage(GROUP, "21st"))) as GrammyError;
    expect(e.error_code).toBe(429);
    expect(e.parameters.retry_after).toBeGreaterThanOrEqual(1);
    expect(e.parameters.retry_after).toBeLessThanOrEqual(60);
  });

  it("allows thirty messages a second overall", async () => {
    double.setRateLimits({ timeScale: 1 });
    for (let id = 1; id <= 31; id++) double.addChat({ id, type: "private" });
    const results = await Promise.all(Array.from({ length: 31 }, (_, i) => settle(api.sendMessage(i + 1, "hi"))));
    expect(results.filter((r) => r instanceof GrammyError && r.error_code === 429)).toHaveLength(1);
  });
});

describe("edits are paced like messages, and each message's history says what it showed when", () => {
  it("an edit right after a message in the same chat is a 429 and changes nothing; one a second later is accepted", async () => {
    double.setRateLimits({ timeScale: 0.1 }); // one Telegram second = 100 ms
    const sent = await api.sendMessage(REVIEWER, "Sending at 10:00:05", {
      reply_markup: { inline_keyboard: [[{ text: "↩️ Undo", callback_data: "u" }]] },
    });
    const e = (await settle(api.editMessageText(REVIEWER, sent.message_id, "✅ Sent"))) as GrammyError;
    expect([e.error_code, e.parameters.retry_after]).toEqual([429, 1]);
    expect(double.history(REVIEWER, sent.message_id)).toHaveLength(1);
    await sleep(110);
    await api.editMessageText(REVIEWER, sent.message_id, "✅ Sent");
    const [first, second] = double.history(REVIEWER, sent.message_id);
    expect(first).toMatchObject({
      method: "sendMessage",
      text: "Sending at 10:00:05",
      replyMarkup: { inline_keyboard: [[{ text: "↩️ Undo" }]] },
    });
    expect(second).toMatchObject({ method: "editMessageText", text: "✅ Sent", replyMarkup: undefined });
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(100);
    // What the chat showed at a moment: the version accepted last before it.
    expect(double.showing(REVIEWER, sent.message_id, first!.at)?.text).toBe("Sending at 10:00:05");
    expect(double.showing(REVIEWER, sent.message_id, second!.at - 1)?.text).toBe("Sending at 10:00:05");
    expect(double.showing(REVIEWER, sent.message_id, second!.at)?.text).toBe("✅ Sent");
    expect(double.showing(REVIEWER, sent.message_id, first!.at - 1)).toBeUndefined();
  });
});

describe("injected faults", () => {
  it("failNext answers the given error, times times, and does nothing else", async () => {
    double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 7", retry_after: 7, times: 2 });
    for (let i = 0; i < 2; i++) {
      const e = (await settle(api.sendMessage(REVIEWER, "x"))) as GrammyError;
      expect([e.error_code, e.parameters.retry_after]).toEqual([429, 7]);
    }
    await api.sendMessage(REVIEWER, "x");
    expect(double.messages()).toHaveLength(1);
    expect(double.tooManyRequestsCount).toBe(2);
  });

  it("failNext with until: the error is answered only once until settles, and nothing is sent", async () => {
    let release!: () => void;
    let reached!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held = new Promise<void>((r) => (reached = r));
    const until = () => {
      reached();
      return released;
    };
    double.failNext("sendMessage", { error_code: 429, description: "Too Many Requests: retry after 5", retry_after: 5, until });
    let answered = false;
    const call = settle(api.sendMessage(REVIEWER, "x")).finally(() => (answered = true));
    await held;
    // The answer is written only after until settles: the client cannot have heard yet.
    expect(answered).toBe(false);
    release();
    expect(((await call) as GrammyError).error_code).toBe(429);
    expect(double.messages()).toEqual([]);
  });

  it("dropResponseAfterAccept: the message is sent, the client sees only a network error", async () => {
    double.dropResponseAfterAccept("sendMessage");
    const e = await settle(api.sendMessage(REVIEWER, "did it go?"));
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).message).toBe("Network request for 'sendMessage' failed!");
    expect((e as HttpError).message).not.toContain(double.token);
    expect(double.messages(REVIEWER).map((m) => m.text)).toEqual(["did it go?"]);
    expect(double.calls("sendMessage")[0]?.outcome).toMatchObject({ kind: "dropped", result: { message_id: 1 } });
  });

  it("answerLate: the message is sent at once, the answer comes later", async () => {
    double.answerLate("sendMessage", 1500);
    let answered = false;
    const answer = api.sendMessage(REVIEWER, "took it").then((m) => {
      answered = true;
      return m;
    });
    while (double.messages(REVIEWER).length === 0) await sleep(10);
    expect(answered).toBe(false);
    expect((await answer).message_id).toBe(1);
  });

  it("resetConnection: nothing is sent and the client sees the same network error", async () => {
    double.resetConnection("sendMessage");
    const e = await settle(api.sendMessage(REVIEWER, "x"));
    expect(e).toBeInstanceOf(HttpError);
    expect(double.messages()).toEqual([]);
    expect(double.calls("sendMessage")[0]?.outcome.kind).toBe("reset");
    expect((await api.sendMessage(REVIEWER, "again")).message_id).toBe(1);
  });

  it("delayNext holds the call, and a client timeout does not stop the send", async () => {
    double.delayNext("sendMessage", 300);
    const impatient = new Api(double.token, { apiRoot: double.url, timeoutSeconds: 0.1 });
    const e = await settle(impatient.sendMessage(REVIEWER, "slow"));
    expect(e).toBeInstanceOf(HttpError);
    await double.waitForCall("sendMessage");
    expect(double.messages(REVIEWER).map((m) => m.text)).toEqual(["slow"]);
  });

  it("counts calls per method and reports them to listeners", async () => {
    const seen: string[] = [];
    const off = double.onCall((c) => seen.push(`${c.method}:${c.outcome.kind}`));
    await api.getMe();
    await settle(api.sendMessage(999, "x"));
    off();
    await api.getMe();
    expect(seen).toEqual(["getMe:ok", "sendMessage:error"]);
    expect(double.callCount("getMe")).toBe(2);
    expect(double.calls("sendMessage")[0]?.outcome).toEqual({ kind: "error", errorCode: 400, description: "Bad Request: chat not found" });
  });
});

describe("stop", () => {
  it("ends a held long poll and closes at once", async () => {
    const poll = settle(api.getUpdates({ timeout: 30 }));
    while (!double.calls("getUpdates").some((c) => c.outcome.kind === "pending")) await sleep(5); // held
    const started = Date.now();
    await double.stop();
    expect(await poll).toBeInstanceOf(HttpError);
    expect(Date.now() - started).toBeLessThan(500);
    double = await startTelegramDouble(); // afterEach stops this one
  });
});
