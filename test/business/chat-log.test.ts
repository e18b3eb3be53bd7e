import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHAT_LOG_KEEP_MS, CHAT_LOG_MAX_CHATS, CHAT_LOG_MAX_MESSAGES, ChatLog } from "../../src/business/chat-log.js";

const HOUR = 3_600_000;
const quiet = { warn: () => {} };
let dir = "";
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("ChatLog: what people wrote to the owner", () => {
  it("keeps the last few messages per chat, at most 48 h and a bounded number of chats, durably", async () => {
    dir = await mkdtemp(join(tmpdir(), "chat-log-"));
    let now = Date.now();
    const path = join(dir, "business_chats.json");
    const log = await ChatLog.open(path, () => now, quiet);
    for (let i = 1; i <= CHAT_LOG_MAX_MESSAGES + 3; i++)
      await log.record(7, { message_id: i, at: now - HOUR, author: "Anna", text: `m${i}` });
    expect(await log.record(7, { message_id: 3, at: now, author: "Anna", text: "again" })).toBe(false);
    expect(log.chat(7)?.messages.map((m) => m.text)).toEqual(["m4", "m5", "m6", "m7", "m8"]);
    expect(log.chat(7)?.last_incoming).toBe(now - HOUR);
    expect(await log.record(8, { message_id: 1, at: now - CHAT_LOG_KEEP_MS - 1, author: "Old", text: "x" })).toBe(false);
    for (let c = 100; c < 100 + CHAT_LOG_MAX_CHATS; c++) await log.record(c, { message_id: 1, at: now, author: "P", text: "hi" });
    expect(log.size).toBe(CHAT_LOG_MAX_CHATS);
    expect(log.chat(7), "the least recently active chat went first").toBeUndefined();

    const again = await ChatLog.open(path, () => now, quiet);
    expect(again.chat(100)?.messages).toHaveLength(1);
    now += CHAT_LOG_KEEP_MS + 1;
    expect(again.chat(100)).toBeUndefined();
    expect(JSON.parse(await readFile(path, "utf8")).chats.length).toBe(CHAT_LOG_MAX_CHATS);
  });
});
