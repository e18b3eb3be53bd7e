import { describe, expect, it } from "vitest";
import { callbackData, confirmMessage, readCallbackData, reviewKeyboard } from "../../src/telegram/review-buttons.js";
import { editedDecisionText, editedReviewText, reviewPost, statusLine, statusText } from "../../src/telegram/review-format.js";
import { draftIn, T0 } from "../support/drafts.js";
import { supersededText } from "../../src/telegram/flow-format.js";

const opts = { deferForMs: 24 * 3_600_000, timeZone: "UTC", now: () => T0 };
const GROUP_AUDIENCE = {
  chat_id: "-1001234567890",
  kind: "supergroup" as const,
  title: "Destination",
  username: null,
  member_count: 1234,
  can_post: true,
  problem: null,
  checked_at: new Date(T0).toISOString(),
};

function single(post: ReturnType<typeof reviewPost>) {
  if (post.kind !== "single") throw new Error("expected a single post");
  return post.message;
}

describe("a long draft's header (issue 35, point 3)", () => {
  it("shows no legend: the message with the buttons does, under the draft's last part, and takes each status on top", () => {
    const text = `${"x".repeat(3_000)}\n${"y".repeat(1_000)}`;
    const long = draftIn("pending", { draft_text: text });
    const post = reviewPost(long, opts);
    if (post.kind !== "split") throw new Error("expected a split post");
    expect(post.header.text).toMatch(
      /is in the 2 replies to this message, in order \(each next message begins on a new line of the draft\); the last one takes the decision and shows what becomes of it\.$/,
    );
    expect(post.earlier.map((p) => p.text)).toEqual(["x".repeat(3_000)]);
    expect(post.header.text).not.toContain("👍 send");
    expect(post.draft.text).toBe(`${"y".repeat(1_000)}\n👍 send · 👎 revise (or reply with a note) · 😴 defer 24h`);
    expect(post.draft.entities).toEqual([{ type: "blockquote", offset: 0, length: 1_000 }]);
    const quiet = reviewPost(long, { ...opts, legend: () => false });
    if (quiet.kind !== "split") throw new Error("expected a split post");
    expect(quiet.draft.text).toBe("y".repeat(1_000));
    const deferred = editedDecisionText(draftIn("deferred", { draft_text: text }), opts)!;
    expect(deferred.text).toMatch(/^😴 Deferred until .+\n\ny{1000}\n👍 send/);
    expect(deferred.entities.find((e) => e.type === "blockquote")).toEqual({
      type: "blockquote",
      offset: deferred.text.indexOf("y".repeat(1_000)),
      length: 1_000,
    });
    expect(editedDecisionText(draftIn("sent", { draft_text: text }), opts)!.text).toMatch(/^✅ Sent .+\n\ny{1000}$/);
  });
});

describe("a replaced draft's post (issue 35, point 7)", () => {
  it("names the role whose new version replaced it, with a link to its post where the review chat has links", () => {
    const later = draftIn("pending", {
      draft_id: "d_later",
      drafted_by_role: "Margot",
      review_chat_id: "-1001234500000",
      review_message_id: 77,
    });
    const earlier = draftIn("revise", { revision_note: "shorter", revised_by: "d_later", review_chat_id: "-1001234500000" });
    const lookup = { ...opts, draftById: (id: string) => (id === "d_later" ? later : undefined) };
    expect(statusLine(earlier, lookup)).toBe("✍️ Revise: shorter\n🔁 Replaced by Margot's new version: https://t.me/c/1234500000/77.");
    expect(statusLine(earlier, opts)).toBe("✍️ Revise: shorter\n🔁 Replaced by a new version (d_later).");
  });
});

describe("a deferred draft's post (issue 35, point 9)", () => {
  it("says when it now expires once, in its status line, not again as Expires in the header", () => {
    const deferred = draftIn("deferred", { expires_at: new Date(T0 + 48 * 3_600_000).toISOString() });
    const text = editedReviewText(deferred, opts)!.text;
    expect(text).toMatch(/^😴 Deferred until /);
    expect(text).not.toContain("Expires ");
    expect(single(reviewPost(draftIn("pending"), opts)).text).toContain("Expires ");
  });
});

describe("the review post", () => {
  it("names the role and destination, holds the text exactly inside a blockquote entity, and lists the keys", () => {
    const text = "Hi *all* <b>x</b> [y](z)";
    const m = single(reviewPost(draftIn("pending", { draft_text: text }), opts));
    expect(m.text.startsWith("✏️ DRAFT (Scribe) — for chat -1001234567890\n")).toBe(true);
    const quote = m.entities.find((e) => e.type === "blockquote")!;
    expect(m.text.slice(quote.offset, quote.offset + quote.length)).toBe(text);
    expect(m.text).toContain("👍 send · 👎 revise (or reply with a note) · 😴 defer 24h");
    // An absolute time (true whenever it is read) under a date_time entity the client shows as "in 24 hours".
    expect(m.text).toContain("Expires Tue 1 Dec 10:00, unless decided.");
    const time = m.entities.find((e) => e.type === "date_time")!;
    expect(m.text.slice(time.offset, time.offset + time.length)).toBe("Tue 1 Dec 10:00");
    expect(time).toMatchObject({ unix_time: (T0 + 24 * 3_600_000) / 1000, date_time_format: "r" });
  });

  it("puts a code entity over each /command of the draft (not tappable), and nothing else changes", () => {
    const text = "Please /resume now, or /halt@my_bot. Not a/path nor https://x.y/z";
    const m = single(reviewPost(draftIn("pending", { draft_text: text }), opts));
    const codes = m.entities.filter((e) => e.type === "code").map((e) => m.text.slice(e.offset, e.offset + e.length));
    expect(codes).toEqual(["/resume", "/halt@my_bot"]);
    expect(m.text).toContain(text);
  });

  it("counts invisible characters, but not the joiners inside emoji", () => {
    const padded = "Hi" + "\u200b".repeat(3850) + "\u202e!";
    const m = single(reviewPost(draftIn("pending", { draft_text: padded.slice(0, 3000) }), opts));
    expect(m.text).toContain("⚠️ Contains 2,998 invisible characters");
    const emoji = single(reviewPost(draftIn("pending", { draft_text: "Family 👨‍👩‍👧 ❤️ 🏴󠁧󠁢󠁳󠁣󠁴󠁿 1️⃣" }), opts));
    expect(emoji.text).not.toContain("invisible");
  });

  it("says what redaction removed, or that it is off", () => {
    expect(single(reviewPost(draftIn("pending", { redaction: { mode: "redact", removed: { email: 2, phone: 1 } } }), opts)).text).toContain(
      "🔒 3 items removed: 2 email, 1 phone. 🔓 Keep them, or add your own to PII_ALLOW.",
    );
    expect(single(reviewPost(draftIn("pending", { redaction: { mode: "off", removed: {} } }), opts)).text).toContain(
      "PII redaction is off",
    );
  });

  // Issue 25 point 6: the owner's own details came back only by retyping them from memory.
  it("offers 🔓 Keep the removed items while version 1 awaits a decision, and says what came back in the version it makes", () => {
    const redaction = { mode: "redact" as const, removed: { phone: 1, email: 1 }, hints: ["phone ending 678", "email at northwind.io"] };
    const v1 = draftIn("pending", { draft_text: "Call [phone] or [email].", redaction });
    const line = "🔒 2 items removed: phone ending 678, email at northwind.io. 🔓 Keep them, or add your own to PII_ALLOW.";
    expect(single(reviewPost(v1, opts)).text).toContain(line);
    const keepRow = [{ text: "🔓 Keep the removed items", callback_data: `v1:keep:${v1.draft_id}` }];
    expect(reviewKeyboard(v1, opts).inline_keyboard.at(-1)).toEqual(keepRow);
    expect(readCallbackData(`v1:keep:${v1.draft_id}`)).toEqual({ action: "keep", decision: null, draftId: v1.draft_id, confirmed: false });
    // Queued (being posted), deferred and halted posts offer it too; a decided one and a later version do not.
    for (const status of ["queued", "deferred", "halted"] as const)
      expect(reviewKeyboard({ ...v1, status }, opts).inline_keyboard.at(-1)).toEqual(keepRow);
    const sent = draftIn("sent", { draft_text: v1.draft_text, redaction, sent_at: "2026-11-30T10:05:00.000Z" });
    expect(single(reviewPost(sent, opts)).text).toContain("🔒 2 items removed: phone ending 678, email at northwind.io.\n");
    expect(JSON.stringify(reviewKeyboard(sent, opts))).not.toContain("keep");
    const v2 = draftIn("pending", {
      draft_text: "Call +61 412 345 678 or sam@northwind.io.",
      previous_text: v1.draft_text,
      text_version: 2,
      redaction: { mode: "reviewer", removed: {}, restored: true, hints: redaction.hints },
    });
    const text = single(reviewPost(v2, opts)).text;
    expect(text).toContain(
      "🔓 Version 2 keeps the removed items (phone ending 678, email at northwind.io).\nChanges: Call [phone] +61 412 345 678 or",
    );
    expect(text).not.toContain("🔒");
    expect(JSON.stringify(reviewKeyboard(v2, opts))).not.toContain("keep");
    expect(supersededText(v2)).toMatch(/^🔓 Replaced by version 2 \(the removed items kept\)\. Decide on the new post below/);
    // An ✏️ edit of version 1 leaves nothing to keep.
    const edited = { ...v2, redaction: { mode: "reviewer" as const, removed: {} } };
    expect(JSON.stringify(reviewKeyboard(edited, opts))).not.toContain("keep");
    expect(single(reviewPost(edited, opts)).text).toContain("✏️ Rewritten (version 2)");
    expect(single(reviewPost(edited, opts)).text).not.toContain("🔓");
  });

  it("splits a long draft into a header and its parts, each quoted; the last leaves room for the status and the legend", () => {
    const text = "a".repeat(4096);
    const post = reviewPost(draftIn("pending", { draft_text: text }), opts);
    if (post.kind !== "split") throw new Error("expected a split post");
    const last = post.draft.entities[0]!.length;
    expect(post.earlier.map((p) => p.text).join("") + post.draft.text.slice(0, last)).toBe(text);
    expect(post.draft.entities).toEqual([{ type: "blockquote", offset: 0, length: last }]);
    expect(last).toBeLessThanOrEqual(4096 - 600);
    expect(post.header.text).toContain("is in the 2 replies to this message");
    expect(editedReviewText(draftIn("sent", { draft_text: text }), opts)).toBeNull();
  });

  it("has buttons while a decision is awaited, the send button naming the destination; none after", () => {
    const rows = reviewKeyboard(draftIn("pending", { audience: GROUP_AUDIENCE }), opts).inline_keyboard;
    expect(rows.flat().map((b) => b.text)).toEqual(["👍 Send to Destination", "❌ Revise", "⏳ +24h", "✏️ Edit"]);
    expect(
      reviewKeyboard(draftIn("pending", { audience: { ...GROUP_AUDIENCE, username: "dest" } }), opts).inline_keyboard[0]![0]!.text,
    ).toBe("👍 Send to ⚠️ Destination");
    expect(reviewKeyboard(draftIn("sent"), opts).inline_keyboard).toEqual([]);
    // While UNDO_WINDOW runs: the countdown on top, and only ↩️ Undo.
    const waiting = draftIn("approved", { send_after: "2026-11-30T10:03:12.000Z" });
    expect(
      reviewKeyboard(waiting, opts)
        .inline_keyboard.flat()
        .map((b) => b.text),
    ).toEqual(["↩️ Undo"]);
    expect(statusLine(waiting, { ...opts, timeZone: "UTC" })).toBe("👍 Approved · Sending at 10:03:12 · ↩️ Undo");
    expect(reviewKeyboard(draftIn("approved"), opts).inline_keyboard).toEqual([]);
  });

  it("says on a revise's post whom its note went to: queued for the roles, told once a consumer took it; nothing without a note", () => {
    const noted = draftIn("revise", { revision_note: "Margot: shorter please", revise_undo: null });
    expect(statusLine(noted, opts)).toBe("✍️ Revise: Margot: shorter please\n✉️ Queued for Scribe and Margot.");
    expect(statusLine(noted, { ...opts, noteTold: true })).toBe("✍️ Revise: Margot: shorter please\n✉️ Told Scribe and Margot.");
    const undoable = { ...noted, revise_undo: { until: new Date(T0 + 60_000).toISOString(), before: "pending" as const } };
    expect(statusLine(undoable, opts)).toMatch(/^✍️ Revise: Margot: shorter please\n↩️ Undo until .+\n✉️ Queued for Scribe and Margot\.$/);
    expect(statusLine(draftIn("revise", { revision_note: null, revise_undo: null }), opts)).toBe("✍️ Sent back for revision.");
  });

  it("shows an edited version's number and word diff, and a new version's note", () => {
    const edited = draftIn("pending", { draft_text: "See you Friday.", previous_text: "See you Thursday.", text_version: 2 });
    expect(reviewPost(edited, opts)).toMatchObject({
      kind: "single",
      message: { text: expect.stringContaining("✏️ Edited in review: version 2.\nChanges: See you Thursday. Friday.") },
    });
    const chained = draftIn("pending", { revises: "d_a", revises_note: "shorter", previous_text: "A long text", draft_text: "Short" });
    expect(reviewPost(chained, opts)).toMatchObject({
      message: { text: expect.stringContaining("🔁 New version of an earlier draft.\nYour note: “shorter”") },
    });
  });

  // Issue 25 point 7: a wholesale rewrite showed a "Changes:" line longer than either text.
  it("says a version that changed most of the words was rewritten, with no diff and no diff entities", () => {
    const before = "Hi Anna, just checking whether Thursday still works for the budget review. Thanks, me.";
    const after = "Anna — the budget review moves to next week; a new invite follows.";
    const m = single(reviewPost(draftIn("pending", { previous_text: before, draft_text: after, text_version: 2 }), opts));
    expect(m.text).toContain("✏️ Rewritten (version 2): most of the words changed.\n");
    expect(m.text).not.toContain("Changes:");
    expect(m.text).not.toContain("Edited in review");
    expect(m.entities.filter((e) => e.type === "strikethrough" || e.type === "bold")).toEqual([]);
    const chained = single(reviewPost(draftIn("pending", { revises: "d_a", previous_text: before, draft_text: after }), opts));
    expect(chained.text).toContain("🔁 New version of an earlier draft.\n✏️ Rewritten: most of the words differ from the earlier draft.");
  });

  // Issue 26 point 6: any role may revise any draft; the post says who revised whose.
  it("says which role revised whose draft", () => {
    const other = draftIn("pending", { drafted_by_role: "Margot", revises: "d_a", revises_role: "Scribe", revises_post: 7 });
    expect(single(reviewPost(other, opts)).text).toContain("🔁 Margot's new version of Scribe's draft quoted above.");
    const unposted = { ...other, revises_post: null };
    expect(single(reviewPost(unposted, opts)).text).toContain("🔁 Margot's new version of an earlier draft by Scribe.");
    const own = { ...other, revises_role: "Margot" as const };
    expect(single(reviewPost(own, opts)).text).toContain("🔁 New version of the draft quoted above.");
  });

  it("shows the status on top after a change, the entities moved along", () => {
    const edited = editedReviewText(draftIn("sent", { sent_at: "2026-11-30T10:05:00.000Z", draft_text: "Run /resume" }), opts)!;
    expect(edited.text).toMatch(/^✅ Sent at Mon 30 Nov 10:05\./);
    const code = edited.entities.find((e) => e.type === "code")!;
    expect(edited.text.slice(code.offset, code.offset + code.length)).toBe("/resume");
    expect(edited.entities.find((e) => e.type === "date_time")).toMatchObject({
      offset: "✅ Sent at ".length,
      length: "Mon 30 Nov 10:05".length,
      unix_time: Date.parse("2026-11-30T10:05:00.000Z") / 1000,
      date_time_format: "wdt",
    });
  });

  it("puts every time the status shows under a date_time entity: the send and ↩️ Undo, a deferral's end", () => {
    const times = (d: Parameters<typeof statusText>[0]) =>
      statusText(d, opts).entities.map((e) => [statusText(d, opts).text.slice(e.offset, e.offset + e.length), e.type]);
    expect(times(draftIn("approved", { send_after: "2026-11-30T10:03:12.000Z" }))).toEqual([["10:03:12", "date_time"]]);
    expect(times(draftIn("deferred", { expires_at: "2026-12-01T10:00:00.000Z" }))).toEqual([["Tue 1 Dec 10:00", "date_time"]]);
    const revise = draftIn("revise", { revise_undo: { until: "2026-11-30T10:00:30.000Z", before: "pending" } });
    expect(statusText(revise, opts).text).toContain("↩️ Undo until 10:00:30");
    expect(times(revise)).toEqual([["10:00:30", "date_time"]]);
    expect(times(draftIn("pending"))).toEqual([]);
  });

  it("shows times in REVIEW_TIMEZONE", () => {
    const m = single(reviewPost(draftIn("pending"), { ...opts, timeZone: "Asia/Tokyo" }));
    expect(m.text).toContain("Expires Tue 1 Dec 19:00");
  });

  it("names the audience: a person, a group with its members, a public channel with ⚠️", () => {
    const person = single(
      reviewPost(draftIn("pending", { audience: { ...GROUP_AUDIENCE, kind: "private", title: "Anna Smith", member_count: null } }), opts),
    );
    expect(person.text).toContain("— for 👤 Anna Smith · private chat");
    const group = single(reviewPost(draftIn("pending", { audience: GROUP_AUDIENCE }), opts));
    expect(group.text).toContain("— for 👥 “Destination” · supergroup · 1,234 members");
    const channel = single(reviewPost(draftIn("pending", { audience: { ...GROUP_AUDIENCE, kind: "channel", username: "news" } }), opts));
    expect(channel.text).toContain("— for ⚠️ 📢 “Destination” · @news · public channel · 1,234 members");
  });

  it("asks a large audience's confirmation with one button", () => {
    const ask = confirmMessage(draftIn("pending", { audience: GROUP_AUDIENCE }));
    expect(ask.text).toBe("Send to 1,234 members of “Destination”? Your 👍 counts once you confirm.");
    expect(ask.markup.inline_keyboard[0]![0]).toMatchObject({ text: "✅ Yes, send to 1,234 members", callback_data: "v1:confirm:d_test" });
  });

  it("says the audience is unknown when Telegram did not answer, in the post and in the question", () => {
    const noCount = { ...GROUP_AUDIENCE, username: "town", member_count: null };
    const post = single(reviewPost(draftIn("pending", { audience: noCount }), opts));
    expect(post.text).toContain(
      "— for ⚠️ 👥 “Destination” · @town · public supergroup · ⚠️ audience unknown (Telegram did not give the member count)",
    );
    const ask = confirmMessage(draftIn("pending", { audience: noCount }));
    expect(ask.text).toBe(
      "Send to “Destination” (@town, public)? Telegram did not answer, so who will read it is not known. Your 👍 counts once you confirm.",
    );
    expect(ask.markup.inline_keyboard[0]![0]).toMatchObject({ text: "✅ Yes, send" });

    const unresolved = {
      ...GROUP_AUDIENCE,
      kind: "unknown" as const,
      title: null,
      member_count: null,
      can_post: null,
      problem: "audience unknown (Telegram did not answer)",
    };
    const bare = single(reviewPost(draftIn("pending", { audience: unresolved }), opts));
    expect(bare.text).toContain("— for chat -1001234567890 (⚠️ audience unknown (Telegram did not answer))");
    expect(confirmMessage(draftIn("pending", { audience: unresolved })).text).toBe(
      "Send to -1001234567890? Telegram did not answer, so who will read it is not known. Your 👍 counts once you confirm.",
    );
  });

  it("reads back only well-formed callback data, at most 64 bytes", () => {
    const data = callbackData("defer", "d_mx2s7dh5_cd0fb7c8b505");
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(readCallbackData(data)).toEqual({ action: "defer", decision: "defer", draftId: "d_mx2s7dh5_cd0fb7c8b505", confirmed: false });
    // "Send to 2" among several destinations (issue 34): a send naming its destination.
    expect(readCallbackData("v1:to2:d_x")).toEqual({ action: "send", decision: "send", draftId: "d_x", confirmed: false, destination: 2 });
    expect(readCallbackData("v1:to6:d_x")).toBeNull();
    expect(readCallbackData("v1:confirm:d_x")).toEqual({ action: "confirm", decision: "send", draftId: "d_x", confirmed: true });
    expect(readCallbackData("v1:edit:d_x")).toEqual({ action: "edit", decision: null, draftId: "d_x", confirmed: false });
    expect(readCallbackData("v1:undo:d_x")).toEqual({ action: "undo", decision: null, draftId: "d_x", confirmed: false });
    for (const bad of [undefined, "", "v1:send", "v2:send:d_x", "v1:approve:d_x", "v1:send:d x", "v1:send:d_x\n"])
      expect(readCallbackData(bad)).toBeNull();
  });

  it("has a status line for every status", () => {
    for (const s of [
      "queued",
      "pending",
      "deferred",
      "approved",
      "sending",
      "halted",
      "sent",
      "revise",
      "expired",
      "failed",
      "outcome_unknown",
    ] as const) {
      expect(statusLine(draftIn(s), opts).length).toBeGreaterThan(5);
    }
  });
});
