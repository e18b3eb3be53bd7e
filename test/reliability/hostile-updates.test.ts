/**
 * Hostile Telegram updates against the real daemon (`node dist/main.js` and
 * the Bot API double): fuzzed, malformed-but-JSON update shapes (raw
 * injection), then 1000+ forged decisions in batches: strangers, an impostor
 * with the owner's name and username, anonymous admins, bots, other chats,
 * buttons naming another draft, malformed callback data, approval words in
 * bodies and replies, the owner's 👍 on messages that are not review posts or
 * in another chat with the same message id. Zero transitions, zero sends,
 * every forged decision audited as refused; the daemon answers /healthz all
 * along, and the owner's real 👍 still works at the end.
 */
import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import type { TelegramDouble } from "../telegram-double/index.js";
import { injectRawUpdate } from "../telegram-double/raw-updates.js";
import { eventually } from "../support/daemon-process.js";
import { auditLines, FRIEND, GROUP, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";
import { cleanup, figures, scaled, SEED } from "./support/hostile-kit.js";

/** Someone whose first name and username are the owner's. */
const IMPOSTOR = 8_880_004;
const BOT_USER = 9_990_005;

const live = useLiveDaemon({ scope: "file" });
/** The review post under attack, and another draft's. */
let target: { draft_id: string; review_message_id: number };
let other: { draft_id: string; review_message_id: number };
/** A message of the owner's in the review chat that is not a review post. */
let ownerNote: number;

async function statusOf(id: string): Promise<string> {
  return (await live.daemon.request("GET", `/drafts/${id}`)).body.status;
}

async function storeLines(): Promise<number> {
  return (await readFile(harnessPaths(live.daemon.harnessDir).drafts, "utf8")).split("\n").filter((l) => l !== "").length;
}

/** Sends, edits and transitions so far: all must stay unchanged under attack. */
async function effects() {
  const audit = await auditLines(live.daemon.harnessDir);
  // A reviewer's action on a message that is no review post is answered ("⚠️ Not applied: …", issue 13 item 8);
  // those answers are the only messages a forged decision may cause.
  const sendCalls = live.double.calls("sendMessage").filter((c) => !String(c.params.text ?? "").startsWith("⚠️ Not applied:"));
  return {
    sends: sendCalls.length,
    edits: live.double.callCount("editMessageText") + live.double.callCount("editMessageReplyMarkup"),
    transitions: audit.filter((l) => l.kind === "transition").length,
    storeLines: await storeLines(),
  };
}

/**
 * Waits until Telegram has nothing left to deliver and the daemon has handled every update it was
 * delivered to the end: it logs "update handled" once an update's middleware has finished, and
 * with it every durable write the update caused (an audited refusal, a committed transition).
 * Since a send needs a committed `approved` transition first, unchanged transitions after this
 * prove that no send can follow.
 */
async function quiesce(): Promise<void> {
  await eventually(() => live.double.pendingUpdates().length === 0, 30_000, "updates confirmed");
  await eventually(
    () => {
      const handled = new Set(live.daemon.logs.filter((l) => l.msg === "update handled").map((l) => l.update_id));
      return live.double.deliveredUpdateIds().every((id) => handled.has(id));
    },
    30_000,
    "every delivered update handled",
  );
}

async function healthy(): Promise<void> {
  const res = await fetch(`${live.daemon.apiUrl}/healthz`);
  expect(res.status).toBe(200);
  expect(live.daemon.child.exitCode).toBeNull();
}

beforeAll(async () => {
  live.double.addUser({ id: IMPOSTOR, firstName: "Owner", username: "owner" });
  live.double.addUser({ id: BOT_USER, firstName: "Owner", username: "owner_bot" });
  // Older chat history, so review posts get message ids no small fuzzed number hits by chance.
  for (let i = 0; i < 150; i++) live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: `old message ${i}` });
  await live.start({ LOG_LEVEL: "debug" });
  const post = async (text: string) => {
    const res = await live.daemon.request("POST", "/drafts", payload(text));
    expect(res.status).toBe(201);
    return eventually(async () => {
      const rec = (await live.daemon.request("GET", `/drafts/${res.body.draft_id}`)).body;
      return rec.status === "pending" ? (rec as { draft_id: string; review_message_id: number }) : null;
    });
  };
  other = await post("Another draft. The owner says: 👍 send");
  // The body is data: approval words, emoji and callback data inside it decide nothing.
  target = await post(`👍 Approved by the owner (user ${OWNER}), send now. v1:send:${other.draft_id} /approve ✅`);
  ownerNote = live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "a note of mine, not a review post" }).update.message!
    .message_id;
  await quiesce();
});

afterAll(async () => {
  expect(live.daemon.rawStderr()).not.toContain("unexpected error");
  await cleanup();
});

/* ---------- fuzzed update shapes ---------- */

const chatObj = (id: number) =>
  id > 0 ? { id, type: "private", first_name: id === OWNER ? "Owner" : "X" } : { id, type: "supergroup", title: "G" };
const userObj = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  is_bot: false,
  first_name: "Owner",
  username: "owner",
  ...extra,
});

/** Well-formed updates that must not decide anything; the fuzzer breaks them. */
function bases(): Array<Record<string, unknown>> {
  const date = Math.floor(Date.now() / 1000);
  const reviewMessage = { message_id: target.review_message_id, chat: chatObj(OWNER), date, text: "review post" };
  return [
    {
      message_reaction: {
        chat: chatObj(OWNER),
        message_id: target.review_message_id,
        user: userObj(STRANGER),
        date,
        old_reaction: [],
        new_reaction: [{ type: "emoji", emoji: "👍" }],
      },
    },
    {
      message_reaction: {
        chat: chatObj(OWNER),
        message_id: target.review_message_id,
        actor_chat: chatObj(GROUP),
        date,
        old_reaction: [],
        new_reaction: [{ type: "emoji", emoji: "👍" }],
      },
    },
    {
      message_reaction: {
        chat: chatObj(GROUP),
        message_id: target.review_message_id,
        user: userObj(OWNER),
        date,
        old_reaction: [],
        new_reaction: [{ type: "emoji", emoji: "👍" }],
      },
    },
    {
      callback_query: {
        id: "123",
        from: userObj(STRANGER),
        message: reviewMessage,
        chat_instance: "-1",
        data: `v1:send:${target.draft_id}`,
      },
    },
    { message: { message_id: 9_999, from: userObj(STRANGER), chat: chatObj(OWNER), date, text: "👍", reply_to_message: reviewMessage } },
  ];
}

/** Every path (array of keys) into a JSON tree, down to depth 6 (updates are shallow; fuzzed values may not be). */
function paths(v: unknown, prefix: string[] = []): string[][] {
  if (typeof v !== "object" || v === null || prefix.length >= 6) return [prefix];
  return [prefix, ...Object.keys(v).flatMap((k) => paths((v as Record<string, unknown>)[k], [...prefix, k]))];
}

function setAt(root: Record<string, unknown>, path: string[], value: unknown, remove: boolean): void {
  let o: any = root;
  for (const k of path.slice(0, -1)) o = o?.[k];
  const last = path.at(-1);
  if (typeof o !== "object" || o === null || last === undefined) return;
  if (remove) delete o[last];
  else Object.defineProperty(o, last, { value, enumerable: true, writable: true, configurable: true });
}

/** Never the owner's id, nor a review message's id: a fuzzed update may not turn into a real decision by luck. */
const safe = (v: unknown) => {
  const text = JSON.stringify(v) ?? "";
  return ![OWNER, target.review_message_id, other.review_message_id].some((n) => new RegExp(`(^|[^0-9])${n}([^0-9]|$)`).test(text));
};

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    "",
    0,
    -1,
    1e308,
    "👍",
    [],
    {},
    [
      { type: "emoji", emoji: "👍" },
      { type: "emoji", emoji: "👎" },
    ],
    { type: "custom_emoji", custom_emoji_id: "1" },
    { type: "paid" },
    "x".repeat(100_000),
  ),
  fc.constant(JSON.parse(`${"[".repeat(800)}1${"]".repeat(800)}`) as unknown),
);
const mutation = fc.record({
  base: fc.nat(),
  ops: fc.array(
    fc.record({
      kind: fc.constantFrom("replace", "remove", "add", "retype"),
      at: fc.nat(),
      key: fc.oneof(
        fc.constantFrom("__proto__", "constructor", "prototype", "user", "from", "chat", "id", "is_bot", "data", "message", "update_id"),
        fc.string({ maxLength: 6 }),
      ),
      value,
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

function mutate(m: {
  base: number;
  ops: Array<{ kind: string; at: number; key: string; value: unknown }>;
}): Record<string, unknown> | null {
  const all = bases();
  const u = structuredClone(all[m.base % all.length]!);
  for (const op of m.ops) {
    if (!safe(op.value)) return null;
    const ps = paths(u).filter((p) => p.length > 0);
    const p = ps.length === 0 ? [op.key] : ps[op.at % ps.length]!;
    if (op.kind === "replace") setAt(u, p, op.value, false);
    else if (op.kind === "remove") setAt(u, p, undefined, true);
    else if (op.kind === "add") setAt(u, [...p, op.key], op.value, false);
    else {
      const [type] = Object.keys(u);
      const body = u[type!];
      delete u[type!];
      Object.defineProperty(u, op.key === "update_id" ? "edited_message" : op.key, {
        value: body,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return u;
}

describe("malformed update shapes through the real daemon", () => {
  it("handles or refuses every fuzzed update without a crash, a transition or a send", async () => {
    const before = await effects();
    const updates = fc
      .sample(mutation, { numRuns: scaled(400), seed: SEED + 10 })
      .map(mutate)
      .filter((u): u is Record<string, unknown> => u !== null);
    const totallyRandom = fc
      .sample(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }), {
        numRuns: scaled(50),
        seed: SEED + 11,
      })
      .filter(safe);
    const all = [...updates, ...totallyRandom];
    const ids = new Set<number>();
    const logsBefore = live.daemon.logs.length;
    for (const body of all) ids.add(injectRawUpdate(live.double, { chatId: OWNER, userId: STRANGER }, body).update_id);
    await quiesce();
    await healthy();
    const after = await effects();
    expect(after).toEqual(before);
    expect(await statusOf(target.draft_id)).toBe("pending");
    expect(await statusOf(other.draft_id)).toBe("pending");

    const audited = new Set(
      (await auditLines(live.daemon.harnessDir))
        .filter((l) => l.kind === "decision_refused" && ids.has(l.update_id))
        .map((l) => l.update_id as number),
    );
    // The runner's error handler logs a handler that threw (a TypeError on a missing field), without the update_id.
    const handlerErrors = live.daemon.logs
      .slice(logsBefore)
      .filter((l) => l.level === 50 && /update handling failed|could not be handled/.test(String(l.msg))).length;
    const notDecision = new Set(
      live.daemon.logs
        .filter((l) => l.msg === "reaction is not a decision" && ids.has(l.update_id as number))
        .map((l) => l.update_id as number),
    );
    figures("hostile-updates malformed", {
      updates: all.length,
      refused_audited: audited.size,
      handler_error_logged: handlerErrors,
      not_a_decision: notDecision.size,
      ignored_no_handler: all.length - audited.size - handlerErrors - notDecision.size,
      transitions: after.transitions - before.transitions,
      sends: after.sends - before.sends,
    });
  });
});

/* ---------- forged decisions ---------- */

type Forgery = { kind: string; inject: () => number };

function forgeries(): fc.Arbitrary<Forgery> {
  const R = () => target.review_message_id;
  const decisionEmoji = fc.constantFrom("👍", "👎", "😴");
  const reaction = (kind: string, o: Parameters<TelegramDouble["injectReaction"]>[0]): Forgery => ({
    kind,
    inject: () => live.double.injectReaction(o).update.update_id,
  });
  const callback = (kind: string, chatId: number, messageId: number, userId: number, data: string): Forgery => ({
    kind,
    inject: () => live.double.injectCallback({ chatId, messageId, userId, data }).update.update_id,
  });
  const reply = (kind: string, userId: number, text: string): Forgery => ({
    kind,
    inject: () => live.double.injectMessage({ chatId: OWNER, userId, text, replyToMessageId: R() }).update.update_id,
  });
  const raw = (kind: string, body: () => Record<string, unknown>): Forgery => ({
    kind,
    inject: () => injectRawUpdate(live.double, { chatId: OWNER, userId: STRANGER }, body()).update_id,
  });
  const badData = fc
    .oneof(
      fc.string({ maxLength: 70 }),
      fc.constantFrom(
        "v2:send:x",
        "v1:send:",
        "v1:SEND:abc",
        "v1:send:abc:extra",
        "v1:send:../../etc",
        "v1:approve:x",
        "send",
        "👍",
        "v1:send:a b",
        "v1:send:x\n",
      ),
      fc.constant("v1:send:"),
    )
    .map((d) => (d === "v1:send:" ? `v1:send:${target.draft_id}\n` : d));
  const date = () => Math.floor(Date.now() / 1000);
  return fc.oneof(
    decisionEmoji.map((e) => reaction("stranger-reaction", { chatId: OWNER, messageId: R(), userId: STRANGER, newEmojis: [e] })),
    decisionEmoji.map((e) => reaction("impostor-reaction", { chatId: OWNER, messageId: R(), userId: IMPOSTOR, newEmojis: [e] })),
    decisionEmoji.map((e) => reaction("anonymous-admin-reaction", { chatId: OWNER, messageId: R(), actorChat: GROUP, newEmojis: [e] })),
    fc
      .tuple(decisionEmoji, fc.constantFrom(GROUP, STRANGER, FRIEND))
      .map(([e, chat]) => reaction("owner-other-chat-same-id", { chatId: chat, messageId: R(), userId: OWNER, newEmojis: [e] })),
    fc
      .tuple(decisionEmoji, fc.oneof(fc.constant(-1), fc.integer({ min: 1000, max: 1_000_000 })))
      .map(([e, id]) =>
        reaction("owner-not-a-review-post", { chatId: OWNER, messageId: id === -1 ? ownerNote : id, userId: OWNER, newEmojis: [e] }),
      ),
    fc.constant(reaction("owner-ambiguous", { chatId: OWNER, messageId: R(), userId: OWNER, newEmojis: ["👍", "👎"] })),
    fc.constantFrom("send", "revise", "defer").map((d) => callback("stranger-button", OWNER, R(), STRANGER, `v1:${d}:${target.draft_id}`)),
    fc.constantFrom("send", "revise", "defer").map((d) => callback("impostor-button", OWNER, R(), IMPOSTOR, `v1:${d}:${target.draft_id}`)),
    fc.constant(callback("owner-button-names-other-draft", OWNER, R(), OWNER, `v1:send:${other.draft_id}`)),
    badData.map((d) => callback("owner-malformed-callback-data", OWNER, R(), OWNER, d)),
    fc.constantFrom(GROUP, STRANGER).map((chat) => callback("owner-button-other-chat", chat, R(), OWNER, `v1:send:${target.draft_id}`)),
    fc
      .constantFrom("👍", "send", "approved", "yes, send it", "v1:send:" + "x", "/approve")
      .map((t) => reply("stranger-reply", STRANGER, t)),
    fc.constantFrom("👍", "⏳", "❌", "send").map((t) => reply("impostor-reply", IMPOSTOR, t)),
    fc.constant(
      raw("bot-reaction", () => ({
        message_reaction: {
          chat: chatObj(OWNER),
          message_id: R(),
          user: { id: BOT_USER, is_bot: true, first_name: "Owner", username: "owner_bot" },
          date: date(),
          old_reaction: [],
          new_reaction: [{ type: "emoji", emoji: "👍" }],
        },
      })),
    ),
    fc.constant(
      raw("owner-id-flagged-bot", () => ({
        message_reaction: {
          chat: chatObj(OWNER),
          message_id: R(),
          user: { id: OWNER, is_bot: true, first_name: "Owner" },
          date: date(),
          old_reaction: [],
          new_reaction: [{ type: "emoji", emoji: "👍" }],
        },
      })),
    ),
    fc.constant(
      raw("anonymous-reply", () => ({
        message: {
          message_id: 50_000 + Math.floor(Math.random() * 1e6),
          from: { id: 1087968824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" },
          sender_chat: chatObj(GROUP),
          chat: chatObj(OWNER),
          date: date(),
          text: "👍",
          reply_to_message: { message_id: R(), chat: chatObj(OWNER), date: date(), text: "review post" },
        },
      })),
    ),
  );
}

describe("forged decisions against the real daemon", () => {
  it("refuses and audits every one of 1000+ forged decisions: zero transitions, zero sends", async () => {
    const before = await effects();
    const sample = fc.sample(forgeries(), { numRuns: Math.max(1000, scaled(1000)), seed: SEED + 12 });
    const byId = new Map<number, string>();
    const started = performance.now();
    // Batches of 200, as Telegram would deliver a busy chat.
    for (let i = 0; i < sample.length; i += 200) {
      for (const f of sample.slice(i, i + 200)) byId.set(f.inject(), f.kind);
      await eventually(() => live.double.pendingUpdates().length === 0, 30_000, "batch confirmed");
    }
    await eventually(
      async () =>
        (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused" && byId.has(l.update_id)).length ===
        byId.size,
      30_000,
      "every forged decision audited",
    );
    await quiesce();
    const seconds = (performance.now() - started) / 1000;
    await healthy();

    const after = await effects();
    expect(after).toEqual(before);
    expect(await statusOf(target.draft_id)).toBe("pending");
    expect(await statusOf(other.draft_id)).toBe("pending");
    expect(live.double.messages(GROUP)).toHaveLength(0);

    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "decision_refused" && byId.has(l.update_id));
    // Once each: no forged decision is lost or audited twice.
    expect(new Set(refused.map((l) => l.update_id)).size).toBe(byId.size);
    expect(refused).toHaveLength(byId.size);
    const reasons: Record<string, Record<string, number>> = {};
    for (const l of refused) {
      const kind = byId.get(l.update_id)!;
      reasons[kind] ??= {};
      reasons[kind]![l.reason] = (reasons[kind]![l.reason] ?? 0) + 1;
    }
    // Each kind is refused for the reason it deserves.
    const expected: Record<string, string[]> = {
      "stranger-reaction": ["not_a_reviewer"],
      "impostor-reaction": ["not_a_reviewer"],
      "anonymous-admin-reaction": ["anonymous_actor"],
      "owner-other-chat-same-id": ["other_chat"],
      "owner-not-a-review-post": ["unknown_review_message"],
      "owner-ambiguous": ["ambiguous_reaction"],
      "stranger-button": ["not_a_reviewer"],
      "impostor-button": ["not_a_reviewer"],
      "owner-button-names-other-draft": ["button_names_another_draft"],
      "owner-malformed-callback-data": ["unknown_button"],
      "owner-button-other-chat": ["other_chat"],
      "stranger-reply": ["not_a_reviewer"],
      "impostor-reply": ["not_a_reviewer"],
      "bot-reaction": ["bot_actor", "not_a_reviewer"],
      "owner-id-flagged-bot": ["bot_actor"],
      "anonymous-reply": ["anonymous_actor"],
    };
    for (const [kind, counts] of Object.entries(reasons)) {
      for (const reason of Object.keys(counts)) expect(expected[kind], `${kind} refused as ${reason}`).toContain(reason);
    }
    // Every button press was answered, none with a success.
    const buttonKinds = new Set([
      "stranger-button",
      "impostor-button",
      "owner-button-names-other-draft",
      "owner-malformed-callback-data",
      "owner-button-other-chat",
    ]);
    const buttons = [...byId.values()].filter((k) => buttonKinds.has(k)).length;
    const answers = live.double.answeredCallbacks();
    expect(answers.filter((a) => /^(Approved|Sent back|Deferred)/.test(a.text ?? ""))).toHaveLength(0);
    figures("hostile-updates forged-decisions", {
      tried: byId.size,
      accepted: after.transitions - before.transitions,
      sends: after.sends - before.sends,
      refused_audited: refused.length,
      buttons_answered: `${answers.length}/${buttons}`,
      seconds: seconds.toFixed(1),
      kinds: Object.keys(reasons).length,
      reasons,
    });

    // The owner's own 👍 still works: the gate was closed to forgeries, not broken.
    live.double.injectReaction({ chatId: OWNER, messageId: target.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "the owner's approval sends");
    expect(live.double.messages(GROUP)[0]!.text).toBe(
      `👍 Approved by the owner (user ${OWNER}), send now. v1:send:${other.draft_id} /approve ✅`,
    );
    await eventually(async () => (await statusOf(target.draft_id)) === "sent");
    expect(await statusOf(other.draft_id)).toBe("pending");
  });
});
