/**
 * Issue 20, point 8: the daemon logs one info line per draft created, decided
 * and sent, with ids and no text (through the real daemon and the double).
 */
import { describe, expect, it } from "vitest";
import { OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

describe("the daemon's info log", () => {
  it("has one line each when a draft is created, decided and sent, with ids, without its text", async () => {
    await live.start();
    const secret = "Text that must never reach the log 4711";
    const res = await live.daemon.request("POST", "/drafts", payload(secret));
    expect(res.status).toBe(201);
    const id = res.body.draft_id as string;
    live.double.injectReaction({ chatId: OWNER, messageId: res.body.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    const sent = await live.daemon.waitForLog((l) => l.msg === "draft sent" && l.draft_id === id);
    expect(sent).toMatchObject({ level: 30, to: "sent", sent_message_id: expect.any(Number) });
    const mine = live.daemon.logs.filter((l) => l.draft_id === id && l.level === 30 && typeof l.to === "string");
    const kinds = mine.map((l) => l.msg);
    expect(kinds.filter((k) => k === "draft created")).toHaveLength(1);
    expect(kinds.filter((k) => k === "draft decided")).toHaveLength(1);
    expect(kinds.filter((k) => k === "draft sent")).toHaveLength(1);
    expect(mine.find((l) => l.msg === "draft decided")).toMatchObject({ to: "approved", decided_by: OWNER, channel: "reaction" });
    expect(live.daemon.rawStderr()).not.toContain(secret);
  });
});
