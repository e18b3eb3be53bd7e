import { describe, expect, it } from "vitest";
import { parseDraftPayload } from "../../src/drafts/payload.js";

const valid = {
  draft_text: "Hello there",
  destination_chat_id: "-1001234567890",
  destination_thread_id: null,
  drafted_by_role: "Scribe",
  originating_intent_id: "intent-1",
};

describe("parseDraftPayload", () => {
  it("accepts the contract's payload and fills optional fields with null", () => {
    const r = parseDraftPayload({ ...valid, destination_thread_id: undefined });
    expect(r).toEqual({ ok: true, payload: { ...valid, revises: null, idempotency_key: null, send_as: "bot", reply_to_message_id: null } });
  });

  it("accepts a numeric chat id and a public @username", () => {
    expect(parseDraftPayload({ ...valid, destination_chat_id: -100123 })).toMatchObject({
      ok: true,
      payload: { destination_chat_id: "-100123" },
    });
    expect(parseDraftPayload({ ...valid, destination_chat_id: "@owner_channel" }).ok).toBe(true);
  });

  it.each([
    [{ ...valid, draft_text: "" }, "draft_text", "must not be empty"],
    [{ ...valid, draft_text: "  \n " }, "draft_text", "must not be empty"],
    [{ ...valid, draft_text: 42 }, "draft_text", ""],
    [{ ...valid, destination_chat_id: "hello" }, "destination_chat_id", "numeric chat id"],
    [{ ...valid, drafted_by_role: "Bob" }, "drafted_by_role", ""],
    [{ ...valid, originating_intent_id: undefined }, "originating_intent_id", "is required"],
    [{ ...valid, destination_thread_id: 1.5 }, "destination_thread_id", ""],
    [{ ...valid, surprise: 1 }, "surprise", "unknown field"],
    ["not an object", "payload", ""],
  ])("refuses %j naming %s", (input, field, words) => {
    const r = parseDraftPayload(input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.field).toBe(field);
    expect(r.error.startsWith(`${field}:`)).toBe(true);
    expect(r.error).toContain(words);
  });

  it("counts the 4096 limit in UTF-16 code units, as Telegram does", () => {
    const emoji = "😀"; // two code units
    expect(parseDraftPayload({ ...valid, draft_text: emoji.repeat(2048) }).ok).toBe(true);
    const over = parseDraftPayload({ ...valid, draft_text: emoji.repeat(2048) + "a" });
    expect(over).toMatchObject({ ok: false, field: "draft_text" });
    if (!over.ok) expect(over.error).toContain("4097");
  });
});

describe("send_as and reply_to_message_id (contract v3)", () => {
  const base = { draft_text: "Yes, 7 pm.", destination_chat_id: "7770003", drafted_by_role: "Scribe", originating_intent_id: "i" };

  it("accepts bot, owner and auto, with a message to answer; bot by default", () => {
    for (const send_as of ["bot", "owner", "auto"]) {
      const r = parseDraftPayload({ ...base, send_as, reply_to_message_id: 12 });
      expect(r.ok && [r.payload.send_as, r.payload.reply_to_message_id]).toEqual([send_as, 12]);
    }
    const r = parseDraftPayload(base);
    expect(r.ok && [r.payload.send_as, r.payload.reply_to_message_id]).toEqual(["bot", null]);
  });

  it("refuses an unknown send_as or a malformed reply_to_message_id, naming the field", () => {
    expect(parseDraftPayload({ ...base, send_as: "me" })).toEqual({
      ok: false,
      field: "send_as",
      error: 'send_as: must be one of "bot", "owner", "auto"',
    });
    const bad = parseDraftPayload({ ...base, reply_to_message_id: "12" });
    expect(bad.ok === false && bad.field).toBe("reply_to_message_id");
  });
});
