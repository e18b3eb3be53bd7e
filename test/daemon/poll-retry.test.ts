import { GrammyError, HttpError } from "grammy";
import { describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { withPollingRetry } from "../../src/daemon/poll-retry.js";

const telegramSaid = (code: number, description: string, parameters: Record<string, unknown> = {}) =>
  new GrammyError("getUpdates failed", { ok: false, error_code: code, description, parameters }, "getUpdates", {});
const reset = () =>
  new HttpError("Network request for 'getUpdates' failed!", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
const flush = () => new Promise<void>((r) => setImmediate(r));

/** A getUpdates that fails with `errors` in turn, then answers ["update"]; and what was logged. */
function world(errors: unknown[]) {
  const clock = new SimulatedClock(0);
  const calls: number[] = [];
  const logs: Array<{ level: string; msg: string; retry_in_ms: unknown }> = [];
  const log = {
    warn: (obj: object, msg: string) => logs.push({ level: "warn", msg, retry_in_ms: (obj as { retry_in_ms?: unknown }).retry_in_ms }),
    error: (obj: object, msg: string) => logs.push({ level: "error", msg, retry_in_ms: (obj as { retry_in_ms?: unknown }).retry_in_ms }),
  };
  const poll = withPollingRetry(
    async () => {
      calls.push(clock.now());
      const err = errors.shift();
      if (err !== undefined) throw err;
      return ["update"];
    },
    log,
    clock,
  );
  return { clock, calls, logs, poll };
}

/** Runs the poll, advancing the simulated clock `stepMs` at a time until it settles. */
async function drive(w: ReturnType<typeof world>, signal = new AbortController().signal, stepMs = 100) {
  let outcome: { value?: unknown; error?: unknown } | undefined;
  w.poll(undefined, signal).then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  for (let i = 0; outcome === undefined && i < 10_000; i++) {
    await flush();
    if (outcome === undefined) await w.clock.advance(stepMs, flush);
  }
  return outcome!;
}

describe("withPollingRetry", () => {
  it("backs off 1 s, 2 s, 4 s ... at most 30 s on failures that are not Telegram's word", async () => {
    const w = world(Array.from({ length: 7 }, reset));
    expect(await drive(w)).toEqual({ value: ["update"] });
    const gaps = w.calls.slice(1).map((t, i) => t - w.calls[i]!);
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(w.logs.every((l) => l.level === "warn" && l.msg === "getUpdates failed; polling again after a pause")).toBe(true);
  });

  it("does not poll again before the pause is over", async () => {
    const w = world([reset()]);
    void w.poll(undefined, new AbortController().signal);
    await flush();
    await w.clock.advance(999, flush);
    expect(w.calls).toEqual([0]);
    await w.clock.advance(1, flush);
    expect(w.calls).toEqual([0, 1000]);
  });

  it("waits retry_after on 429, without growing the backoff", async () => {
    const w = world([
      telegramSaid(429, "Too Many Requests: retry after 5", { retry_after: 5 }),
      reset(),
      telegramSaid(429, "Too Many Requests"),
    ]);
    expect(await drive(w)).toEqual({ value: ["update"] });
    expect(w.logs.map((l) => l.retry_in_ms)).toEqual([5000, 1000, 1000]);
  });

  it("logs 409 as an error naming the fix, and keeps polling", async () => {
    const w = world([telegramSaid(409, "Conflict: terminated by other getUpdates request")]);
    expect(await drive(w)).toEqual({ value: ["update"] });
    expect(w.logs).toHaveLength(1);
    expect(w.logs[0]).toMatchObject({ level: "error", retry_in_ms: 1000 });
    expect(w.logs[0]!.msg).toContain("stop the other instance or use a separate bot token");
  });

  it("throws 401 at once: the token was revoked", async () => {
    const w = world([telegramSaid(401, "Unauthorized")]);
    const outcome = await drive(w);
    expect((outcome.error as GrammyError).error_code).toBe(401);
    expect(w.calls).toEqual([0]);
  });

  it("ends the pause and throws when the poll is aborted", async () => {
    const w = world([reset()]);
    const controller = new AbortController();
    const running = w.poll(undefined, controller.signal);
    await flush();
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(HttpError);
    expect(w.calls).toEqual([0]);
  });
});
