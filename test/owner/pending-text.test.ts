import { describe, expect, it } from "vitest";
import { MAX_LISTED, pendingText, reviewLink, type PendingDraft } from "../../src/owner/pending-text.js";

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
    expect(text.split("\n")).toEqual([
      "4 drafts awaiting a decision (oldest first):",
      "• CoS → -1001234567890 (topic 3) · deferred · 1d 6h old, expires tomorrow 10:00, in 22 h · message 7",
      "  “Hi Anna, Thursday 10:00 works.”",
      "• Scribe → -1001234567890 · halted · 3h old, expires tomorrow 10:00, in 22 h · https://t.me/c/9876543210/42",
      "  “Hi Anna, Thursday 10:00 works.”",
      "• Scribe → -1001234567890 · pending · 2h old, expires tomorrow 10:00, in 22 h · https://t.me/c/9876543210/42",
      "  “Hi Anna, Thursday 10:00 works.”",
      "• Scribe → -1001234567890 · queued · 1m old, expires tomorrow 10:00, in 22 h · not posted yet",
      "  “Hi Anna, Thursday 10:00 works.”",
      "Decide on a review message with 👍 send · 👎 revise · 😴 defer.",
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
    expect(pendingText([draft({ audience })], NOW, "UTC")).toContain("• Scribe → ⚠️ “News” · pending");
  });

  it("says when nothing waits, and counts what it does not list", () => {
    expect(pendingText([draft({ status: "sent" })], NOW)).toBe("Nothing awaits a decision.");
    const many = Array.from({ length: MAX_LISTED + 3 }, (_, i) => draft({ draft_id: `d_${i}`, draft_text: "x".repeat(300) }));
    const text = pendingText(many, NOW);
    expect(text).toContain(`${MAX_LISTED + 3} drafts awaiting a decision`);
    expect(text).toContain("… and 3 more: `npx draft-review list --status pending` shows them all.");
    expect(text.length).toBeLessThan(4096);
  });

  it("fits 80 drafts with long destinations and texts in one message, oldest first", () => {
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
    expect(text.split("\n")[0]).toBe("80 drafts awaiting a decision (oldest first):");
    expect(text.split("\n")[1]).toContain("@long_destination_name_0 ");
    expect(text).toMatch(/… and \d+ more/);
  });
});
