import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { freshDirs, pathExists, removeFreshDirs } from "../support/daemon-process.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

afterEach(removeFreshDirs);

describe("test mode: the business command (a person's message to the owner)", () => {
  it("lets a draft answer as the owner within 24 h, records sent_as, and refuses a bad send_as naming the field", async () => {
    const dirs = await freshDirs();
    const person = 4242;
    const out = await testModeSession(dirs, [
      { cmd: "business", from_id: person, text: "Lunch tomorrow?", ago: "2h", name: "Anna" },
      { ...draft("Yes, 12:30."), destination_chat_id: String(person), send_as: "owner", reply_to_message_id: 1 },
      { ...draft("x"), send_as: "me" },
      { cmd: "business", from_id: person, text: "too old", ago: "49h" },
    ]);
    expect(out[0]).toEqual({ chat_id: person, message_id: 1, at: expect.any(String), business_connection_id: "test-mode" });
    expect(out[1]).toMatchObject({ status: "pending" });
    expect(out[2]).toEqual({ error: 'send_as: must be one of "bot", "owner", "auto"', field: "send_as" });
    expect(out[3]).toMatchObject({ error: expect.stringContaining("older than 48 h") });
    const id = (out[1] as { draft_id: string; review_message_id: number }).draft_id;
    const post = (out[1] as { review_message_id: number }).review_message_id;
    const sent = await testModeSession(dirs, [
      // The assumed connection lives for one session: a new session assumes it again.
      { cmd: "business", from_id: person, text: "?", ago: "1m", name: "Anna" },
      { cmd: "react", review_message_id: post, emoji: "👍" },
      { cmd: "advance" },
      { cmd: "get", draft_id: id },
    ]);
    expect(sent[3]).toMatchObject({
      status: "sent",
      send_as: "owner",
      sent_as: "owner",
      sender: { kind: "owner", person_name: "Anna" },
      answering: { message_id: 1, author: "Anna", text: "Lunch tomorrow?" },
    });
    // Test mode's made-up messages are no evidence for a live daemon: the live files are not written.
    expect(await pathExists(join(dirs.harnessDir, "business_chats.json"))).toBe(false);
    expect(await pathExists(join(dirs.harnessDir, "business_chats.test-mode.json"))).toBe(true);
  });
});
