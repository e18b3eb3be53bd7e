/**
 * 9. Undo visible before the send (issue 25, point 9; contract v4, "The undo
 * window is what the chat shows"): 8 👍 by the reviewer within 2 s in his
 * private review chat, UNDO_WINDOW=5s, through the real daemon (dist) against
 * the double at Telegram's pace (1 message or edit a second per chat, 429s
 * past it). Every time is the double's acceptance of a call: when the post
 * first showed "↩️ Undo", when the draft's text reached its destination, when
 * the post stopped offering the Undo. Each draft goes to its own private chat,
 * so no destination's pace pads a window.
 */
import { join } from "node:path";
import { startTelegramDouble, type ShownVersion, type TelegramDouble } from "../test/telegram-double/index.js";
import { startDaemon } from "./daemon.js";
import { BENCH_API_TOKEN, fixed, OWNER, quantile, sleep, tempDir } from "./support.js";
import { info, judged, type Row } from "./table.js";

const DRAFTS = 8;
/** 8 taps 250 ms apart: the last 1.75 s after the first. */
const TAP_GAP_MS = 250;
const UNDO_MS = 5_000;
/** The drafts' destinations: one private chat each. */
const FRIENDS = Array.from({ length: DRAFTS }, (_, i) => 7_770_100 + i);

/** One draft's times (ms since the epoch), all as Telegram (the double) accepted them. */
interface DraftTimes {
  readonly tapped: number;
  readonly undoShown: number;
  readonly sent: number;
  /** How long its post still offered ↩️ Undo after the send (0: not at all). */
  readonly undoAfterSend: number;
  /** sent_at − undo_shown_at in the daemon's own record. */
  readonly recordWindow: number;
}

type Rec = Record<string, any>;

const hasUndo = (v: ShownVersion) => JSON.stringify(v.replyMarkup ?? null).includes("↩️ Undo");

async function api(apiUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Rec }> {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_API_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Rec };
}

/** Polls `probe` every 50 ms until it gives a value; throws `what` after `ms`. */
async function until<T>(probe: () => Promise<T | null | undefined> | T | null | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await sleep(50);
  }
}

/** The draft's record once `ok` holds for it. */
function recordWhen(apiUrl: string, id: string, ok: (r: Rec) => boolean, ms: number, what: string): Promise<Rec> {
  return until(
    async () => {
      const r = (await api(apiUrl, "GET", `/drafts/${id}`)).body;
      return ok(r) ? r : null;
    },
    ms,
    `${id} ${what}`,
  );
}

/**
 * How long after `sent` the post still offered ↩️ Undo: 0 when the version
 * shown at the send had none, null while the version that removes it has not
 * been accepted yet.
 */
function undoAfterSend(versions: readonly ShownVersion[], sent: number): number | null {
  const atSend = versions.filter((v) => v.at <= sent).at(-1);
  if (atSend === undefined || !hasUndo(atSend)) return versions.some((v) => v.at > sent && hasUndo(v)) ? Number.POSITIVE_INFINITY : 0;
  const gone = versions.find((v) => v.at > sent && !hasUndo(v));
  return gone === undefined ? null : gone.at - sent;
}

async function submitAll(apiUrl: string): Promise<Rec[]> {
  const ids: string[] = [];
  for (const [i, friend] of FRIENDS.entries()) {
    const res = await api(apiUrl, "POST", "/drafts", {
      draft_text: `Undo bench draft ${i}: see you on Thursday at 10.`,
      destination_chat_id: String(friend),
      drafted_by_role: "Scribe",
      originating_intent_id: `undo-bench-${i}`,
    });
    if (res.status !== 201) throw new Error(`POST /drafts answered ${res.status}: ${JSON.stringify(res.body)}`);
    ids.push(String(res.body.draft_id));
  }
  // The review posts go out at the chat's pace, one a second.
  return Promise.all(ids.map((id) => recordWhen(apiUrl, id, (r) => r.status === "pending", 30_000, "posted")));
}

/** The 8 taps, then each draft's times once it is sent and its post no longer offers the Undo. */
async function burst(double: TelegramDouble, apiUrl: string): Promise<DraftTimes[]> {
  const drafts = await submitAll(apiUrl);
  const tapped: number[] = [];
  for (const d of drafts) {
    tapped.push(Date.now());
    double.injectReaction({ chatId: OWNER, messageId: d.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await sleep(TAP_GAP_MS);
  }
  return Promise.all(
    drafts.map(async (d, i) => {
      const rec = await recordWhen(apiUrl, d.draft_id, (r) => r.status === "sent", 40_000, "sent");
      const sent = await until(() => double.messages(FRIENDS[i]!)[0]?.at, 5_000, `${d.draft_id} at its destination`);
      const versions = () => double.history(OWNER, d.review_message_id);
      const after = await until(() => undoAfterSend(versions(), sent), 15_000, `${d.draft_id}'s post to drop its Undo`);
      return {
        tapped: tapped[i]!,
        undoShown: versions().find(hasUndo)?.at ?? Number.NaN,
        sent,
        undoAfterSend: after,
        recordWindow: Date.parse(rec.sent_at) - Date.parse(rec.undo_shown_at),
      };
    }),
  );
}

function seconds(ms: number): string {
  return `${fixed(ms / 1000, 2)} s`;
}

function rows(times: readonly DraftTimes[], tooMany: number): Row[] {
  const windows = times.map((t) => t.sent - t.undoShown);
  const shownAfterTap = times.map((t) => t.undoShown - t.tapped);
  const min = Math.min(...windows);
  const afterSend = Math.max(...times.map((t) => t.undoAfterSend));
  const tapToSent = times.map((t) => t.sent - t.tapped);
  const spread = `${seconds(min)} (max ${seconds(Math.max(...windows))}, n=${times.length})`;
  return [
    info("9", "Undo visible before the send: 8 👍 within 2 s, private review chat at 1 msg/s, UNDO_WINDOW=5s", ""),
    judged("9", "  send − Undo shown (Telegram's acceptance times), min over drafts", spread, "≥ 5.0 s", min >= UNDO_MS),
    info("9", "  same from the daemon's records (sent_at − undo_shown_at), min", seconds(Math.min(...times.map((t) => t.recordWindow)))),
    info("9", "  👍 → Undo shown", `p50 ${seconds(quantile(shownAfterTap, 0.5))}, p99 ${seconds(quantile(shownAfterTap, 0.99))}`),
    info("9", "    by tap order (s)", shownAfterTap.map((ms) => fixed(ms / 1000, 1)).join(" ")),
    info("9", "  👍 → sent", `p50 ${seconds(quantile(tapToSent, 0.5))}, p99 ${seconds(quantile(tapToSent, 0.99))}`),
    judged("9", "  Undo still shown after the send, max over drafts", seconds(afterSend), "≤ 2 s", afterSend <= 2_000),
    judged("9", "  429s from Telegram (review chat and destinations)", `${tooMany}`, "0", tooMany === 0),
  ];
}

/** The section: one burst through the real daemon, its rows. */
export async function undoVisibleSection(): Promise<Row[]> {
  const double = await startTelegramDouble({
    chats: [{ id: OWNER, type: "private", firstName: "Owner" }, ...FRIENDS.map((id) => ({ id, type: "private" as const }))],
    users: [{ id: OWNER, firstName: "Owner", username: "owner" }],
    rateLimits: true,
  });
  const tmp = await tempDir("undo");
  try {
    const env = { UNDO_WINDOW: "5s", TELEGRAM_RATE_SCALE: "1", LOG_LEVEL: "info" };
    const daemon = await startDaemon({ cwd: tmp.dir, harnessDir: join(tmp.dir, ".harness"), double, env });
    try {
      // A reaction made before the bot asked for reactions (allowed_updates) is never delivered.
      await until(() => double.allowedUpdates?.includes("message_reaction") || null, 10_000, "the daemon to ask for reactions");
      const times = await burst(double, daemon.apiUrl).catch((err: Error) => {
        throw new Error(`${err.message}; the daemon's log ends:\n${daemon.stderr().slice(-3000)}`);
      });
      return rows(times, double.tooManyRequestsCount);
    } finally {
      await daemon.stop(3_000);
    }
  } finally {
    await double.stop();
    await tmp.remove();
  }
}
