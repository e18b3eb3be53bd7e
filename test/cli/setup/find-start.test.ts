import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { confirmUpTo, isStart, waitForStart, type UpdateSource } from "../../../src/cli/setup/find-start.js";

function message(updateId: number, text: string): Update {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: 5, type: "private", first_name: "O" },
      from: { id: 5, is_bot: false, first_name: "O" },
      text,
    },
  } as Update;
}

/** A fake getUpdates that answers from a script of batches and records its calls. */
function source(batches: Update[][]) {
  const calls: Array<Record<string, unknown>> = [];
  const api: UpdateSource = { getUpdates: async (other) => (calls.push({ ...other }), batches.shift() ?? []) };
  return { api, calls };
}

describe("isStart", () => {
  it("accepts /start and /start@this_bot, with a payload or not", () => {
    expect(isStart(message(1, "/start").message, "my_bot")).toBe(true);
    expect(isStart(message(1, "/start@My_Bot hello").message, "my_bot")).toBe(true);
    expect(isStart(message(1, "/start@other_bot").message, "my_bot")).toBe(false);
    expect(isStart(message(1, "/started").message, "my_bot")).toBe(false);
    expect(isStart(message(1, "hi /start").message, "my_bot")).toBe(false);
    expect(isStart(undefined, "my_bot")).toBe(false);
  });
});

describe("waitForStart", () => {
  it("long-polls messages only, confirms what it skipped, and stops at the /start", async () => {
    const { api, calls } = source([[message(10, "hello")], [message(11, "/start"), message(12, "later")]]);
    const found = await waitForStart(api, "my_bot", { deadlineMs: 100_000, now: () => 0 });
    expect(found?.updateId).toBe(11);
    expect(calls).toEqual([
      { offset: undefined, timeout: 25, limit: 100, allowed_updates: ["message"] },
      { offset: 11, timeout: 25, limit: 100, allowed_updates: ["message"] },
    ]);
    await confirmUpTo(api, 11, ["message", "message_reaction"]);
    expect(calls[2]).toEqual({ offset: 12, timeout: 0, limit: 1, allowed_updates: ["message", "message_reaction"] });
  });

  it("gives up at the deadline, polling no longer than what is left", async () => {
    let now = 0;
    const calls: number[] = [];
    const api: UpdateSource = {
      getUpdates: async (other) => {
        calls.push(other.timeout ?? -1);
        now += (other.timeout ?? 0) * 1000;
        return [];
      },
    };
    expect(await waitForStart(api, "my_bot", { deadlineMs: 40_000, now: () => now })).toBeNull();
    expect(calls).toEqual([25, 15]);
  });
});
