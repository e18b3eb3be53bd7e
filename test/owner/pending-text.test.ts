import { describe, expect, it } from "vitest";
import { PAGE_SIZE, pendingPage, readPendingTap, reviewLink, type PendingDraft } from "../../src/owner/pending-text.js";

const pendingText = (drafts: PendingDraft[], now: number, tz?: string) => pendingPage(drafts, now, 0, tz).text;

const NOW = Date.parse("2030-01-02T12:00:00Z");
const H = 3_600_000;

function draft(over: Partial<PendingDraft> = {}): PendingDraft {
  return {
    draft_id: "d_1",
    status: "pending",
    drafted_by_role: "Scribe",
    destination_chat_id: "-1001234567890",
    destination_thread_id: null,
    drafted_at: new Date(NOW - 2 * H).toISOString(),
    expires_at: new Date(NOW + 22 * H).toISOString(),
    review_chat_id: "-1009876543210",
    review_message_id: 42,
    draft_text: "Hi Anna,\nThursday 10:00 works.",
    ...over,
  };
}

describe("reviewLink", () => {
  it("links supergroup messages and has none for private chats and basic groups", () => {
    expect(reviewLink("-1009876543210", 42)).toBe("https://t.me/c/9876543210/42");
    expect(reviewLink("5550001", 42)).toBeNull();
    expect(reviewLink("-4001234", 42)).toBeNull();
  });
});

describe("pendingText", () => {
  it("lists what awaits a decision, oldest first, with role, destination, age and link", () => {
    const text = pendingText(
      [
        draft(),
        draft({
          draft_id: "d_2",
          status: "deferred",
          drafted_by_role: "CoS",
          drafted_at: new Date(NOW - 30 * H).toISOString(),
          review_chat_id: "5550001",
          review_message_id: 7,
          destination_thread_id: 3,
        }),
        draft({ draft_id: "d_3", status: "queued", review_message_id: null, drafted_at: new Date(NOW - 60_000).toISOString() }),
        draft({ draft_id: "d_4", status: "sent" }),
        draft({ draft_id: "d_5", status: "halted", drafted_at: new Date(NOW - 3 * H).toISOString() }),
      ],
      NOW,
      "UTC",
    );
    // Absolute times (true whenever the answer is read), under date_time entities the client shows as "2 hours ago", "in 22 hours".
    expect(text.split("\n")).toEqual([
      "4 drafts awaiting a decision (oldest first):",
      "1. CoS → -1001234567890 (topic 3) · deferred · drafted Tue 1 Jan 06:00, expires Thu 3 Jan 10:00",
      "   “Hi Anna, Thursday 10:00 works.”",
      "2. Scribe → -1001234567890 · halted · drafted Wed 2 Jan 09:00, expires Thu 3 Jan 10:00 · https://t.me/c/9876543210/42",
      "   “Hi Anna, Thursday 10:00 works.”",
      "3. Scribe → -1001234567890 · pending · drafted Wed 2 Jan 10:00, expires Thu 3 Jan 10:00 · https://t.me/c/9876543210/42",
      "   “Hi Anna, Thursday 10:00 works.”",
      "4. Scribe → -1001234567890 · queued · drafted Wed 2 Jan 11:59, expires Thu 3 Jan 10:00 · not posted yet",
      "   “Hi Anna, Thursday 10:00 works.”",
      "Tap a number to go to its post, then decide there: 👍 send · 👎 revise · 😴 defer.",
    ]);
    expect(text).not.toMatch(/message \d/);
    expect(text).not.toMatch(/\bin \d+ h\b|\bold\b/);
  });

  it("puts each time under a date_time entity (relative, as the client counts), at its place", () => {
    const page = pendingPage([draft()], NOW, 0, "UTC");
    const times = page.entities.map((e) => [
      page.text.slice(e.offset, e.offset + e.length),
      e.type,
      (e as any).unix_time,
      (e as any).date_time_format,
    ]);
    expect(times).toEqual([
      ["Wed 2 Jan 10:00", "date_time", (NOW - 2 * H) / 1000, "r"],
      ["Thu 3 Jan 10:00", "date_time", (NOW + 22 * H) / 1000, "r"],
    ]);
  });

  it("names a resolved destination, ⚠️ when it is public", () => {
    const audience = {
      chat_id: "-1001234567890",
      kind: "channel" as const,
      title: "News",
      username: "news",
      member_count: 9,
      can_post: true,
      problem: null,
      checked_at: "",
    };
    expect(pendingText([draft({ audience })], NOW, "UTC")).toContain("1. Scribe → ⚠️ “News” · pending");
  });

  it("says when nothing waits; the rest are on pages with ◀ ▶ buttons; each posted draft has a numbered button", () => {
    expect(pendingText([draft({ status: "sent" })], NOW)).toBe("Nothing awaits a decision.");
    const many = Array.from({ length: PAGE_SIZE + 3 }, (_, i) => draft({ draft_id: `d_${i}`, draft_text: "x".repeat(300) }));
    const first = pendingPage(many, NOW, 0);
    expect(first.text).toContain(`${PAGE_SIZE + 3} drafts awaiting a decision (oldest first, page 1 of 2)`);
    expect(first.text).not.toContain("npx draft-review");
    const buttons = first.buttons.inline_keyboard.flat();
    expect(buttons.map((b) => b.text)).toEqual([...Array.from({ length: PAGE_SIZE }, (_, i) => `${i + 1} ↗`), "Next ▶"]);
    expect(readPendingTap((buttons[0] as { callback_data: string }).callback_data)).toEqual({ kind: "goto", draftId: "d_0" });
    const second = pendingPage(many, NOW, 1);
    expect(second.text).toContain(`${PAGE_SIZE + 1}. Scribe`);
    expect(second.buttons.inline_keyboard.flat().map((b) => b.text)).toEqual(["9 ↗", "10 ↗", "11 ↗", "◀ Previous"]);
    expect(pendingPage(many, NOW, 99).text).toContain("page 2 of 2");
  });

  it("keeps every page of 80 drafts with long destinations and texts within one message, oldest first", () => {
    const many = Array.from({ length: 80 }, (_, i) =>
      draft({
        draft_id: `d_${i}`,
        destination_chat_id: `@${"long_destination_name_".repeat(1)}${i}`,
        destination_thread_id: 123456,
        draft_text: "y".repeat(2000),
        drafted_at: new Date(NOW - (80 - i) * 60_000).toISOString(),
      }),
    );
    const text = pendingText(many, NOW);
    expect(text.length).toBeLessThan(4096);
    expect(text.split("\n")[0]).toBe("80 drafts awaiting a decision (oldest first, page 1 of 10):");
    expect(text.split("\n")[1]).toContain("@long_destination_name_0 ");
    for (let p = 0; p < 10; p++) expect(pendingPage(many, NOW, p).text.length).toBeLessThan(4096);
  });
});
