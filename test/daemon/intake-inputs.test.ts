import { describe, expect } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { FRIEND, GROUP, OWNER, payload, liveTest, type LiveDaemonFixture } from "../support/live-fixture.js";

/**
 * Issue 19's doubtful points about what a draft's intake accepts, end to end
 * against the Bot API double: `revises` from another role, naming an archived
 * draft, or moving the destination; and the invisible spaces Telegram trims.
 */

// Each test has a Bot API double and daemons of its own, and the tests run at once: most of each is waiting on the real clock.
const it = liveTest();

type Rec = Record<string, any>;

const FAST = { TELEGRAM_RATE_SCALE: "20" };

async function get(d: DaemonProcess, id: string): Promise<Rec> {
  return (await d.request("GET", `/drafts/${id}`)).body;
}

async function submitPosted(d: DaemonProcess, text: string, extra: Rec = {}): Promise<Rec> {
  const res = await d.request("POST", "/drafts", payload(text, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return eventually(async () => {
    const rec = await get(d, res.body.draft_id);
    return rec.status === "pending" ? { ...rec, answer: res.body } : null;
  });
}

/** The reviewer sends a draft back with `note` (a reply to its post); resolves once it is `revise`. */
async function sendBack(live: LiveDaemonFixture, d: DaemonProcess, draft: Rec, note: string): Promise<void> {
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: note, replyToMessageId: draft.review_message_id });
  await eventually(async () => (await get(d, draft.draft_id)).status === "revise", 10_000, "sent back");
}

const post = (live: LiveDaemonFixture, id: number) => live.double.message(OWNER, id);

describe.concurrent("revises", () => {
  // Issue 26 point 6: the contract lets any role revise any draft (v2); a check narrowed it to the role's own drafts.
  it("from another role is accepted; its post says who revised whose draft; v2's revises behaviours hold", async ({ live }) => {
    await live.start(FAST);
    // An earlier draft still awaiting a decision: superseded, its post loses its buttons.
    const scribe = await submitPosted(live.daemon, "Scribe's draft");
    const margot = await submitPosted(live.daemon, "Margot's researched take", { drafted_by_role: "Margot", revises: scribe.draft_id });
    // Accepted, not refused: "queued" when the review chat's pace holds the post back a moment, as on a loaded machine.
    expect(["pending", "queued"]).toContain(margot.answer.status);
    expect(margot).toMatchObject({ revises: scribe.draft_id, revises_role: "Scribe", drafted_by_role: "Margot" });
    expect(await get(live.daemon, scribe.draft_id)).toMatchObject({ status: "revise", reason: "superseded", revised_by: margot.draft_id });
    const text = (await eventually(() => post(live, margot.review_message_id)?.text, 10_000, "the new post"))!;
    expect(text).toContain("🔁 Margot's new version of Scribe's draft quoted above.");
    expect(live.double.messages(OWNER).find((m) => m.messageId === margot.review_message_id)!.replyToMessageId).toBe(
      scribe.review_message_id,
    );
    await eventually(
      () => JSON.stringify(post(live, scribe.review_message_id)?.reply_markup?.inline_keyboard ?? []) === "[]",
      10_000,
      "no buttons",
    );

    // An earlier draft sent back with a note (addressed to nobody): CoS may take it over; the new post quotes the note.
    await sendBack(live, live.daemon, margot, "Shorter, and mention the projector");
    const cos = await submitPosted(live.daemon, "CoS's shorter take, projector included", {
      drafted_by_role: "CoS",
      revises: margot.draft_id,
    });
    const cosText = (await eventually(() => post(live, cos.review_message_id)?.text, 10_000, "the CoS post"))!;
    expect(cosText).toContain("🔁 CoS's new version of Margot's draft quoted above.");
    expect(cosText).toContain("Your note: “Shorter, and mention the projector”");
    expect(await get(live.daemon, margot.draft_id)).toMatchObject({ status: "revise", revised_by: cos.draft_id });

    // The one refusal the contract makes: an unknown id, naming the field.
    const unknown = await live.daemon.request("POST", "/drafts", payload("x", { drafted_by_role: "CoS", revises: "d_nope" }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ field: "revises", error: expect.stringMatching(/^revises: no draft d_nope/) });
  });

  // (b) The earlier record is final once archived; it was "no draft" before.
  it("may name a draft archived since: the new post quotes its note and diff", async ({ live }) => {
    const env = { ...FAST, DRAFT_RETENTION: "1s" };
    await live.start(env);
    const old = await submitPosted(live.daemon, "Dear all, Thursday at 10.");
    await sendBack(live, live.daemon, old, "Say Friday");
    const revisedAt = Date.parse((await get(live.daemon, old.draft_id)).updated_at);
    // The next start finds it past DRAFT_RETENTION and archives it.
    const due = revisedAt + 1_100 - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    const daemon = await live.restart(env);
    await daemon.waitForLog((l) => l.msg === "archived final drafts older than DRAFT_RETENTION");
    expect((await daemon.request("GET", "/drafts")).body.drafts).toEqual([]);

    const next = await submitPosted(daemon, "Dear all, Friday at 10.", { revises: old.draft_id });
    const text = (await eventually(() => post(live, next.review_message_id)?.text, 10_000, "the new post"))!;
    expect(text).toContain("🔁 New version of the draft quoted above.");
    expect(text).toContain("Your note: “Say Friday”");
    expect(text).toMatch(/Changes: .*Friday/);
    expect(await get(daemon, old.draft_id)).toMatchObject({ status: "revise", revised_by: null });
  });

  // (c) A revision that goes elsewhere looked like a text change only.
  it("that changes the destination says so on the new post (from → to), and in the answer's warnings", async ({ live }) => {
    await live.start(FAST);
    const a = await submitPosted(live.daemon, "See you at 10.");
    const res = await live.daemon.request(
      "POST",
      "/drafts",
      payload("See you at 10.", { destination_chat_id: String(FRIEND), revises: a.draft_id }),
    );
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      `destination_chat_id: differs from that of draft ${a.draft_id} (${GROUP}); the review post says so`,
    ]);
    const b = await eventually(async () => ((await get(live.daemon, res.body.draft_id)).review_message_id as number | null) ?? null);
    const text = (await eventually(() => post(live, b)?.text, 10_000, "the new post"))!;
    expect(text).toContain(`🎯 Destination changed: from “Destination” (${GROUP}) to “Friend” (${FRIEND}).`);
    const same = await submitPosted(live.daemon, "See you at 11.", { destination_chat_id: String(FRIEND), revises: res.body.draft_id });
    expect(same.answer.warnings).toBeUndefined();
    expect(post(live, same.review_message_id)?.text).not.toContain("Destination changed");
  });
});

// (d) Telegram trims these from what it delivers: kept, the reviewer saw something else than what arrived.
describe.concurrent("invisible spaces at the ends of a draft", () => {
  it("are trimmed as Telegram trims them, at intake and in an edit, so the reviewed text is the sent one", async ({ live }) => {
    await live.start({ ...FAST, UNDO_WINDOW: "0" });
    const a = await submitPosted(live.daemon, "\uFEFF\u00A0\u3000Hello team,\u2003see you at 10.\u00A0\u200B\n");
    expect(a.draft_text).toBe("Hello team,\u2003see you at 10.");
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "✏️\u3000\u00A0Hello team, see you at 11.\uFEFF",
      replyToMessageId: a.review_message_id,
    });
    const v2 = await eventually(async () => {
      const r = await get(live.daemon, a.draft_id);
      return r.text_version === 2 && r.status === "pending" && r.review_message_id !== a.review_message_id ? r : null;
    });
    expect(v2.draft_text).toBe("Hello team, see you at 11.");
    const blank = await live.daemon.request("POST", "/drafts", payload("\u00A0\u3000\uFEFF\u200B"));
    expect(blank.status).toBe(400);
    expect(blank.body.error).toBe("draft_text: must not be empty");
    live.double.injectReaction({ chatId: OWNER, messageId: v2.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent");
    expect(live.double.messages(GROUP)[0]!.text).toBe("Hello team, see you at 11.");
  });
});
