import { GrammyError, HttpError } from "grammy";
import { describe, expect, it } from "vitest";
import { classifySendError, isNotModified, withoutToken } from "../../src/telegram/classify.js";

const TOKEN = "7123456789:AAF-abcdefghijklmnopqrstuvwxyz0123456";

function telegramSaid(code: number, description: string, parameters: Record<string, unknown> = {}): GrammyError {
  return new GrammyError("call failed", { ok: false, error_code: code, description, parameters }, "sendMessage", {});
}

function network(code: string | undefined, message = "request failed"): HttpError {
  const cause = Object.assign(new Error(message), code === undefined ? {} : { code });
  return new HttpError("Network request for 'sendMessage' failed!", cause);
}

describe("classifySendError: a resend is safe only when the message cannot have been delivered", () => {
  it("429 waits retry_after (at least 1 s)", () => {
    expect(classifySendError(telegramSaid(429, "Too Many Requests: retry after 7", { retry_after: 7 }))).toEqual({
      kind: "retry_after",
      seconds: 7,
      reason: "429: Too Many Requests: retry after 7",
    });
    expect(classifySendError(telegramSaid(429, "Too Many Requests", {}))).toMatchObject({ kind: "retry_after", seconds: 1 });
  });

  it("a 4xx answer is a refusal (not sent, never retried)", () => {
    for (const [code, text] of [
      [400, "Bad Request: chat not found"],
      [403, "Forbidden: bot was blocked by the user"],
      [401, "Unauthorized"],
    ] as const) {
      expect(classifySendError(telegramSaid(code, text))).toEqual({ kind: "refused", reason: `${code}: ${text}` });
    }
  });

  it("a 5xx answer is unknown: Telegram may have delivered it", () => {
    expect(classifySendError(telegramSaid(502, "Bad Gateway"))).toEqual({ kind: "unknown", reason: "Telegram answered 502: Bad Gateway" });
  });

  it("only network errors that prove the request never left are not_sent", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ERR_INVALID_URL"]) {
      expect(classifySendError(network(code))).toEqual({ kind: "not_sent", reason: `network: ${code}` });
    }
  });

  it("resets, timeouts and unreadable answers are unknown", () => {
    expect(classifySendError(network("ECONNRESET"))).toEqual({ kind: "unknown", reason: "no answer from Telegram (ECONNRESET)" });
    expect(classifySendError(network("ETIMEDOUT"))).toMatchObject({ kind: "unknown" });
    expect(classifySendError(network(undefined, "The operation was aborted"))).toEqual({
      kind: "unknown",
      reason: "no answer from Telegram (The operation was aborted)",
    });
  });

  it("finds the code on the cause as well", () => {
    const err = new HttpError("failed", Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } }));
    expect(classifySendError(err)).toMatchObject({ kind: "not_sent" });
  });

  it("anything else is unknown, and no reason ever holds the token", () => {
    const url = `https://api.telegram.org/bot${TOKEN}/sendMessage`;
    const fromHttp = classifySendError(network(undefined, `invalid json response body at ${url}`));
    const other = classifySendError(new Error(`odd failure at ${url} for ${TOKEN}`));
    expect(other.kind).toBe("unknown");
    for (const outcome of [fromHttp, other]) {
      expect("reason" in outcome && outcome.reason).not.toContain(TOKEN.split(":")[1]);
      expect("reason" in outcome && outcome.reason).toContain("/bot<token>/sendMessage");
    }
    expect(withoutToken(`token ${TOKEN} here`)).not.toContain(TOKEN.split(":")[1]);
  });
});

describe("isNotModified", () => {
  it("is true only for Telegram's 400 'message is not modified'", () => {
    expect(isNotModified(telegramSaid(400, "Bad Request: message is not modified: specified new message content is the same"))).toBe(true);
    expect(isNotModified(telegramSaid(400, "Bad Request: message to edit not found"))).toBe(false);
    expect(isNotModified(new Error("message is not modified"))).toBe(false);
  });
});
