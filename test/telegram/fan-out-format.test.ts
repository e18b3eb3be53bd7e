import { describe, expect, it } from "vitest";
import type { Choice } from "../../src/drafts/choices.js";
import type { DraftRecord } from "../../src/drafts/record.js";
import { withChoice } from "../../src/drafts/choices.js";
import { confirmationNeeds } from "../../src/drafts/decide.js";
import { fanOutButtons, fanOutConfirmText, fanOutLines, fanOutStatusLine, toggleData } from "../../src/telegram/fan-out-format.js";
import { confirmMessage, readCallbackData } from "../../src/telegram/review-buttons.js";
import { draftIn } from "../support/drafts.js";

// The words and buttons of choose any (issue 34): a toggle per destination, one 👍, each delivery's outcome.

const choice = (index: number, chatId: string): Choice => ({
  index,
  destination: null,
  destination_chat_id: chatId,
  destination_thread_id: null,
  audience: null,
  channel_audience: null,
});
const any = (overrides: Partial<DraftRecord> = {}): DraftRecord =>
  draftIn("pending", { choices: [choice(1, "-1001"), choice(2, "-1002")], choose: "any", chosen_set: [1, 2], ...overrides });

describe("choose any's confirmation question", () => {
  it("names every destination on that asks the extra tap, numbered as on the post, each with why, and where the tap sends", () => {
    const mailTo = (index: number, to: string): Choice => ({
      ...choice(index, "email"),
      destination: { channel: "email", to: [to], cc: [], bcc: [], subject: "S", in_reply_to: null, references: [] },
      channel_audience: {
        channel: "email",
        reader_count: 1,
        lines: [`to: ${to} (external)`],
        confirm_reasons: [`first approved email outside example.com to ${to}`],
        problem: null,
        fingerprint: `f${index}`,
        checked_at: new Date(0).toISOString(),
      },
    });
    const group = (index: number, title: string, members: number | null): Choice => ({
      ...choice(index, `-100${index}`),
      audience: {
        chat_id: `-100${index}`,
        kind: "supergroup",
        title,
        username: null,
        member_count: members,
        can_post: true,
        problem: null,
        checked_at: new Date(0).toISOString(),
      },
    });
    const choices = [group(1, "Small", 12), group(2, "Big", 1234), mailTo(3, "b@y.org"), group(4, "Hidden", null)];
    const stored = any({ choices, chosen_set: [1, 2, 3, 4] });
    const needs = confirmationNeeds(stored, 200);
    expect(needs.map((n) => n.index)).toEqual([2, 3, 4]);
    // The desk asks with the draft as the first that needs it would go (its identity binds the tap).
    const { text, markup } = confirmMessage(withChoice(stored, 2)!, needs);
    expect(text.split("\n")).toEqual([
      "Send to 2 · Big, 3 · email to b@y.org and 4 · Hidden? Each asks one more tap:",
      "2 · Big: 1,234 members, over AUDIENCE_CONFIRM_OVER (200)",
      "3 · email to b@y.org: first approved email outside example.com to b@y.org",
      "4 · Hidden: Telegram did not say who reads it",
      "Your tap sends to every destination on: 1 · Small, 2 · Big, 3 · email to b@y.org, 4 · Hidden.",
    ]);
    expect(markup.inline_keyboard[0]![0]!.text).toBe("✅ Yes, send to 1, 2, 3, 4");
    // Only those on count: with 2 off, the question names 3 and 4.
    const fewer = any({ choices, chosen_set: [1, 3, 4] });
    expect(confirmMessage(withChoice(fewer, 3)!, confirmationNeeds(fewer, 200)).text).toMatch(
      /^Send to 3 · email to b@y\.org and 4 · Hidden\? Each asks one more tap:\n3 · .*\n4 · .*\nYour tap sends to every destination on: 1 · Small, 3 · email to b@y\.org, 4 · Hidden\.$/,
    );
    expect(confirmationNeeds(draftIn("pending"), 200)).toEqual([]);
    expect(fanOutConfirmText(draftIn("pending"), needs)).toBeNull();
  });
});

describe("choose any on the post", () => {
  it("lists each destination with its toggle's state first and says where a 👍 goes", () => {
    const text = fanOutLines(any({ chosen_set: [2] }));
    expect(text).toMatch(/send to any of 2 destinations \(tap a destination to turn it on or off; 👍 sends to those on: 2\)/);
    expect(text).toMatch(/\n1\. ⬜ off ⭐ recommended — /);
    expect(text).toMatch(/\n2\. ✅ on — /);
  });

  it("has a toggle button per destination, read back as a toggle naming it, and one 👍 for those on", () => {
    const rows = fanOutButtons(any({ chosen_set: [1] }));
    expect(rows.map((r) => r[0]!.text)).toEqual([expect.stringMatching(/^✅ 1 · /), expect.stringMatching(/^⬜ 2 · /), "👍 Send to 1"]);
    expect(readCallbackData(toggleData(2, "d_x"))).toEqual({
      action: "toggle",
      decision: null,
      draftId: "d_x",
      confirmed: false,
      destination: 2,
    });
    expect(fanOutButtons(any({ chosen_set: [] })).at(-1)![0]!.text).toBe("👍 Send (turn one on first)");
  });

  it("once some went: each line says its outcome, the toggles go, and the status line says which went", () => {
    const deliveries = [
      { index: 1, status: "sent", sent_ref: { chat_id: "-1001", message_id: 3 }, reason: null },
      { index: 2, status: "failed", sent_ref: null, reason: "Forbidden: bot was kicked" },
    ];
    const partly = any({ status: "partly_sent", deliveries });
    expect(fanOutLines(partly)).toMatch(/\n1\. ✅ sent ⭐ recommended — /);
    expect(fanOutLines(partly)).toMatch(/\n2\. ❌ not sent: Forbidden: bot was kicked — /);
    expect(fanOutStatusLine(partly)).toMatch(/^◐ Partly sent: sent to 1 · .*; not to 2 · /);
    const halted = any({ status: "halted", deliveries: [deliveries[0]!, { ...deliveries[1]!, status: "halted", reason: null }] });
    expect(fanOutButtons(halted).map((r) => r[0]!.text)).toEqual(["👍 Send the rest"]);
  });

  it("halted in the middle: says why, which went, which ended otherwise, which it stopped, numbered, and what the owner can do", () => {
    const choices = [choice(1, "-1001"), choice(2, "-1002"), choice(3, "-1003"), choice(4, "-1004")];
    const deliveries = [
      { index: 1, status: "sent", sent_ref: { chat_id: "-1001", message_id: 3 }, reason: null },
      { index: 2, status: "outcome_unknown", sent_ref: null, reason: "no answer" },
      { index: 3, status: "halted", sent_ref: null, reason: null },
      { index: 4, status: "halted", sent_ref: null, reason: null },
    ];
    const kill = "kill switch: halted by the owner (/halt or draft-review halt)";
    const lasting = any({ choices, status: "halted", deliveries, reason: kill, halt_lasts: true });
    expect(fanOutStatusLine(lasting)!.split("\n")).toEqual([
      `⛔ Halted in the middle: ${kill}.`,
      "✅ Went: 1 · -1001",
      "❌ Not sent: 2 · -1002 (see its line below)",
      "⛔ Stopped: 3 · -1003, 4 · -1004",
      "👍 Send the rest comes back here when the halt ends (it sends 3, 4 only); 👎 leaves it at what went.",
    ]);
    expect(
      fanOutStatusLine({ ...lasting, halt_lasts: false })!
        .split("\n")
        .at(-1),
    ).toBe(
      "The halt is over: 👍 Send the rest (it sends 3, 4 only); a 👍 reaction given before does not count. 👎 leaves it at what went.",
    );
    const audience = any({ choices, status: "halted", deliveries: deliveries.slice(0, 3), reason: "the group became public (@team)" });
    expect(fanOutStatusLine(audience)!.split("\n")).toEqual([
      "⛔ Halted in the middle: the group became public (@team).",
      "✅ Went: 1 · -1001",
      "❌ Not sent: 2 · -1002 (see its line below)",
      "⛔ Stopped: 3 · -1003",
      "👍 Send the rest (it sends 3 only) once that is fixed; 👎 leaves it at what went.",
    ]);
    const noneWent = any({ choices, status: "halted", deliveries: deliveries.slice(1, 3), reason: kill, halt_lasts: true });
    expect(fanOutStatusLine(noneWent)).toContain("\n✅ Went: none\n");
  });
});
