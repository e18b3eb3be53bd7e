import { afterEach, describe, expect, it } from "vitest";
import { freshDirs, removeFreshDirs } from "../support/daemon-process.js";
import { testModeSession } from "../support/test-mode-process.js";

/**
 * Test mode offline for every channel (issue 33, contract v5), and the
 * recipients the owner picks among (issue 34, choose one and choose any): nothing leaves the
 * machine, `get` shows what would have been sent and where.
 */

afterEach(removeFreshDirs);

type Rec = Record<string, any>;

const base = { drafted_by_role: "Scribe", originating_intent_id: "intent-ch" };
const email = { channel: "email", to: ["anna@example.org"], cc: [], bcc: [], subject: "Thursday", in_reply_to: null, references: [] };
const slack = { channel: "slack", channel_id: "C0DESIGN01", thread_ts: null };
const linear = { channel: "linear", issue: "ENG-123", parent_comment_id: null };
const telegram = { channel: "telegram", chat_id: "-1001234567890", thread_id: null };

describe("test mode: Linear, email and Slack offline", () => {
  it("posts, approves and 'sends' a draft on each channel, and get shows the destination and sent_ref", async () => {
    const dirs = await freshDirs();
    const out = (await testModeSession(dirs, [
      { ...base, draft_text: "Email body.", destination: email },
      { ...base, draft_text: "Slack text.", destination: slack },
      { ...base, draft_text: "Linear comment.", destination: linear },
    ])) as Rec[];
    for (const o of out) expect(o).toMatchObject({ status: "pending" });
    const steps = out.flatMap((o) => [{ cmd: "react", review_message_id: o.review_message_id, emoji: "👍" }]);
    const got = (await testModeSession(dirs, [
      ...steps,
      { cmd: "advance" },
      ...out.map((o) => ({ cmd: "get", draft_id: o.draft_id })),
    ])) as Rec[];
    const records = got.slice(-3);
    expect(records.map((r) => r.status)).toEqual(["sent", "sent", "sent"]);
    expect(records.map((r) => r.destination.channel)).toEqual(["email", "slack", "linear"]);
    for (const r of records) expect(r.sent_ref).toMatchObject({ test_mode: expect.any(String) });
    expect(records[0]!.channel_audience.lines.join("\n")).toContain("anna@example.org");
  });

  it("refuses a destination at fault naming the field", async () => {
    const dirs = await freshDirs();
    const out = (await testModeSession(dirs, [
      { ...base, draft_text: "x", destination: { ...email, subject: "a\nBcc: b@x.org" } },
      { ...base, draft_text: "x", destination: { ...slack, channel_id: "U0ANNA0001" } },
      { ...base, draft_text: "x", destination: email, destination_chat_id: "-100123" },
      { ...base, draft_text: "x", destination: { channel: "fax" } },
    ])) as Rec[];
    expect(out.map((o) => o.field)).toEqual(["destination.subject", "destination.channel_id", "destination", "destination.channel"]);
  });
});

describe("test mode: he picks the recipient (choose one)", () => {
  const two = { ...base, destinations: [telegram, email] };

  it("a button tap sends to that destination, a 👍 to the first, a reply with a number to that one", async () => {
    const dirs = await freshDirs();
    const out = (await testModeSession(dirs, [
      { ...two, draft_text: "By button." },
      { ...two, draft_text: "By thumbs up." },
      { ...two, draft_text: "By number." },
    ])) as Rec[];
    for (const o of out) expect(o).toMatchObject({ status: "pending" });
    const [a, b, c] = out as [Rec, Rec, Rec];
    const got = (await testModeSession(dirs, [
      { cmd: "react", review_message_id: a.review_message_id, emoji: "👍", destination: 2 },
      { cmd: "react", review_message_id: b.review_message_id, emoji: "👍" },
      { cmd: "reply", review_message_id: c.review_message_id, text: "2" },
      { cmd: "advance" },
      { cmd: "get", draft_id: a.draft_id },
      { cmd: "get", draft_id: b.draft_id },
      { cmd: "get", draft_id: c.draft_id },
    ])) as Rec[];
    const [ra, rb, rc] = got.slice(-3) as [Rec, Rec, Rec];
    expect(ra).toMatchObject({ status: "sent", chosen: 2, destination: { channel: "email" }, deliveries: [{ index: 2, status: "sent" }] });
    expect(rb).toMatchObject({ status: "sent", chosen: 1, destination: null, destination_chat_id: "-1001234567890" });
    expect(rb.deliveries).toEqual([{ index: 1, status: "sent", sent_ref: expect.any(Object), reason: null }]);
    expect(rc).toMatchObject({ status: "sent", chosen: 2, destination: { channel: "email" } });
  });

  it("a 👍 on a draft whose approval for 2 was halted sends to 2, as its post says, not to the first", async () => {
    const dirs = await freshDirs();
    const [a] = (await testModeSession(dirs, [{ ...two, draft_text: "Halted, then again." }])) as Rec[];
    const halted = (await testModeSession(
      dirs,
      [
        { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍", destination: 2 },
        { cmd: "get", draft_id: a!.draft_id },
      ],
      { TAO_SWARM_ENABLED: "0" },
    )) as Rec[];
    expect(halted[1]).toMatchObject({ status: "halted", chosen: 2 });
    const got = (await testModeSession(dirs, [
      // The halt ended as this session started (on its clock): the new 👍 comes after it.
      { cmd: "advance", by: "1m" },
      { cmd: "unreact", review_message_id: a!.review_message_id, emoji: "👍" },
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" },
      { cmd: "advance" },
      { cmd: "get", draft_id: a!.draft_id },
    ])) as Rec[];
    expect(got[4], JSON.stringify(got)).toMatchObject({ status: "sent", chosen: 2, destination: { channel: "email" } });
  });

  it("a number the post does not list is refused, and nothing is sent", async () => {
    const dirs = await freshDirs();
    const [a] = (await testModeSession(dirs, [{ ...two, draft_text: "Which one?" }])) as Rec[];
    const got = (await testModeSession(dirs, [
      { cmd: "reply", review_message_id: a!.review_message_id, text: "3" },
      { cmd: "advance" },
      { cmd: "get", draft_id: a!.draft_id },
    ])) as Rec[];
    expect(got[0]).toMatchObject({ refused: expect.stringContaining("not_a_choice") });
    expect(got[2]).toMatchObject({ status: "pending", chosen: null, deliveries: [] });
  });

  it("refuses a list at fault naming the field", async () => {
    const dirs = await freshDirs();
    const out = (await testModeSession(dirs, [
      { ...base, draft_text: "x", destinations: [email] },
      {
        ...base,
        draft_text: "x",
        destinations: [email, slack, linear, telegram, { ...email, to: ["b@example.org"] }, { ...slack, channel_id: "C0OTHER001" }],
      },
      { ...base, draft_text: "x", destinations: [email, { ...email, subject: "Other subject" }] },
      { ...base, draft_text: "x", destinations: [email, slack], destination: email },
      { ...base, draft_text: "x", destinations: [email, slack], choose: "many" },
      { ...base, draft_text: "x", destination: email, choose: "one" },
    ])) as Rec[];
    expect(out.map((o) => o.field)).toEqual(["destinations", "destinations", "destinations[1]", "destinations", "choose", "choose"]);
  });

  it("takes a Telegram destination among several as the whole destination object, with its defaults; a reply or the owner's voice is refused naming the field", async () => {
    const dirs = await freshDirs();
    const full = { ...telegram, thread_id: null, reply_to_message_id: null, send_as: "bot" };
    const out = (await testModeSession(dirs, [
      { ...base, draft_text: "Whole object", destinations: [full, email] },
      { ...base, draft_text: "x", destinations: [{ ...full, reply_to_message_id: 7 }, email] },
      { ...base, draft_text: "x", destinations: [{ ...full, send_as: "owner" }, email] },
    ])) as Rec[];
    expect(out[0]).toMatchObject({ status: "pending" });
    expect(out.slice(1).map((o) => o.field)).toEqual(["destinations[0].reply_to_message_id", "destinations[0].send_as"]);
    expect(out[2]!.error).toContain('must be "bot" among several destinations');
  });
});

describe("test mode: he picks the recipients (choose any)", () => {
  const three = { ...base, destinations: [telegram, email, slack], choose: "any" };

  it("toggle turns a destination off; 👍 sends to those on, one delivery each; get shows them; a toggle then is refused", async () => {
    const dirs = await freshDirs();
    const [a] = (await testModeSession(dirs, [{ ...three, draft_text: "To the group and Slack." }])) as [Rec];
    expect(a).toMatchObject({ status: "pending" });
    const got = (await testModeSession(dirs, [
      { cmd: "toggle", draft_id: a.draft_id, destination: 2 },
      { cmd: "toggle", draft_id: a.draft_id, destination: 6 },
      { cmd: "toggle", draft_id: a.draft_id, destination: 4 },
      { cmd: "react", review_message_id: a.review_message_id, emoji: "👍" },
      { cmd: "advance" },
      { cmd: "get", draft_id: a.draft_id },
      { cmd: "toggle", draft_id: a.draft_id, destination: 2 },
    ])) as Rec[];
    expect(got[0]).toMatchObject({ status: "pending", chosen_set: [1, 3] });
    expect(got[1]).toMatchObject({ error: expect.stringContaining("destination") });
    expect(got[2]).toMatchObject({ status: "pending", refused: "not_a_choice", chosen_set: [1, 3] });
    expect(["approved", "sent"]).toContain(got[3]!.status);
    const rec = got[5]!;
    expect(rec).toMatchObject({ status: "sent", choose: "any", chosen_set: [1, 3] });
    expect(rec.deliveries).toEqual([
      { index: 1, status: "sent", sent_ref: expect.any(Object), reason: null },
      { index: 3, status: "sent", sent_ref: expect.objectContaining({ test_mode: expect.any(String) }), reason: null },
    ]);
    expect(got[6]).toMatchObject({ status: "sent", refused: "final_state" });
  });

  it("a 👍 with every destination off is refused; an ✏️ edit asks for the choice again, all on", async () => {
    const dirs = await freshDirs();
    const [a] = (await testModeSession(dirs, [{ ...base, destinations: [telegram, email], choose: "any", draft_text: "First." }])) as [Rec];
    const got = (await testModeSession(dirs, [
      { cmd: "toggle", draft_id: a.draft_id, destination: 1 },
      { cmd: "toggle", draft_id: a.draft_id, destination: 2 },
      { cmd: "react", review_message_id: a.review_message_id, emoji: "👍" },
      { cmd: "edit", review_message_id: a.review_message_id, text: "Second." },
      { cmd: "get", draft_id: a.draft_id },
    ])) as Rec[];
    expect(got[1]).toMatchObject({ chosen_set: [] });
    expect(got[2]).toMatchObject({ status: "pending", refused: "no_destination_on" });
    expect(got[4]).toMatchObject({ status: "pending", text_version: 2, chosen_set: [1, 2], deliveries: [] });
    expect(got[4]!.choices).toHaveLength(2);
  });
});
