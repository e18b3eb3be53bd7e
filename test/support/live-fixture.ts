import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest";
import { startTelegramDouble, type SentMessage, type TelegramDouble, type TelegramDoubleOptions } from "../telegram-double/index.js";
import { eventually, freshDirs, killDaemons, removeFreshDirs, startDaemon, type DaemonProcess } from "./daemon-process.js";

/** The owner: a private review chat whose user is the reviewer. */
export const OWNER = 5_550_001;
/** Someone else, in the same group or writing to the bot. */
export const STRANGER = 6_660_002;
/** The destination group drafts go to. */
export const GROUP = -1_001_234_567_890;
/** A destination private chat. */
export const FRIEND = 7_770_003;

/** A draft payload for the group. */
export function payload(text: string, extra: Record<string, unknown> = {}) {
  return { draft_text: text, destination_chat_id: String(GROUP), drafted_by_role: "Scribe", originating_intent_id: "intent-1", ...extra };
}

/** A Bot API double that knows the owner, a stranger, the destination group and a friend; `bot`: the bot's getMe (e.g. topics on). */
export async function liveDouble(bot: TelegramDoubleOptions["bot"] = {}): Promise<TelegramDouble> {
  return startTelegramDouble({
    bot,
    chats: [
      { id: OWNER, type: "private", firstName: "Owner" },
      { id: GROUP, type: "supergroup", title: "Destination" },
      { id: FRIEND, type: "private", firstName: "Friend" },
      { id: STRANGER, type: "private", firstName: "Stranger" },
    ],
    users: [
      { id: OWNER, firstName: "Owner", username: "owner" },
      { id: STRANGER, firstName: "Stranger", username: "stranger" },
    ],
  });
}

/** The environment that points a daemon at `double`, with the owner's private chat as review chat. */
export function daemonEnv(double: TelegramDouble): Record<string, string> {
  return { TELEGRAM_BOT_TOKEN: double.token, TELEGRAM_API_ROOT: double.url, REVIEW_CHAT_ID: String(OWNER) };
}

/** Starts the daemon against `double` with the owner's private chat as review chat. */
export async function liveDaemon(double: TelegramDouble, env: Record<string, string> = {}, dirs?: DaemonDirs): Promise<DaemonProcess> {
  const d = dirs ?? (await freshDirs());
  return startDaemon({ cwd: d.cwd, harnessDir: d.harnessDir, env: { ...daemonEnv(double), ...env } });
}

/** The dirs a daemon keeps its files in: a cwd (for `.env`) with HARNESS_DIR inside it. */
export type DaemonDirs = { cwd: string; harnessDir: string };

/** How `start` runs the daemon besides its environment. */
export interface StartOptions {
  /** Where it keeps its files; default: fresh dirs. */
  readonly dirs?: DaemonDirs;
  /** false: resolve as soon as it is spawned (for a start that is meant to fail); default true. */
  readonly waitUntilRunning?: boolean;
}

/** A test's Bot API double and the daemons it started against it; see `useLiveDaemon`. */
export interface LiveDaemonFixture {
  /** This test's Bot API double (made before each test, or once for the file). */
  readonly double: TelegramDouble;
  /** The daemon started last; throws when none was started. */
  readonly daemon: DaemonProcess;
  /** Starts a daemon against the double with the fixture's env, then `env`, on fresh dirs unless `options.dirs`. */
  start(env?: Record<string, string>, options?: StartOptions): Promise<DaemonProcess>;
  /** SIGKILLs the daemon started last (when it still runs) and starts another on the same dirs, as after a crash. */
  restart(env?: Record<string, string>): Promise<DaemonProcess>;
  /**
   * The first message in the review chat (the owner's private chat), after its first `before`
   * messages, whose text `match`es; rejects naming `what` after 10 s.
   */
  reviewChatMessage(before: number, match: RegExp | ((text: string) => boolean), what: string): Promise<SentMessage>;
}

/** What a live fixture is made with; see `useLiveDaemon`. */
export interface LiveOptions {
  readonly env?: Record<string, string>;
  readonly double?: () => Promise<TelegramDouble>;
  readonly start?: boolean;
}

/**
 * A fixture and its two hooks. `own`: it stops only the daemons it started
 * and removes only the dirs it made (tests that run at once must not end each
 * other's daemons); otherwise every daemon and `freshDirs` dir of the file,
 * as tests that start daemons themselves expect.
 */
function makeFixture(
  options: LiveOptions,
  own: boolean,
): { fixture: LiveDaemonFixture; setUp(): Promise<void>; tearDown(): Promise<void> } {
  let double: TelegramDouble | undefined;
  let current: DaemonProcess | undefined;
  const started = new Set<DaemonProcess>();
  const made: string[] = [];
  const dirsFor = async (): Promise<DaemonDirs> => {
    if (!own) return freshDirs();
    const cwd = await mkdtemp(join(tmpdir(), "draft-review-"));
    made.push(cwd);
    return { cwd, harnessDir: join(cwd, ".harness") };
  };
  const fixture: LiveDaemonFixture = {
    get double() {
      if (!double) throw new Error("no Bot API double: the fixture's hooks have not run");
      return double;
    },
    get daemon() {
      if (!current) throw new Error("no daemon started: call start() first");
      return current;
    },
    async start(env = {}, how = {}) {
      const dirs = how.dirs ?? (await dirsFor());
      current = await startDaemon({
        ...dirs,
        waitUntilRunning: how.waitUntilRunning,
        env: { ...daemonEnv(fixture.double), ...options.env, ...env },
      });
      started.add(current);
      return current;
    },
    async restart(env = {}) {
      const last = fixture.daemon;
      await last.stop("SIGKILL");
      return fixture.start(env, { dirs: { cwd: last.cwd, harnessDir: last.harnessDir } });
    },
    reviewChatMessage(before, match, what) {
      const matches = typeof match === "function" ? match : (text: string) => match.test(text);
      return eventually(
        () =>
          fixture.double
            .messages(OWNER)
            .slice(before)
            .find((m) => matches(m.text)),
        10_000,
        what,
      );
    },
  };
  const setUp = async () => {
    double = await (options.double ?? liveDouble)();
    if (options.start) await fixture.start();
  };
  const tearDown = async () => {
    if (own) await Promise.all([...started].map((d) => d.stop("SIGKILL")));
    else await killDaemons();
    started.clear();
    current = undefined;
    await double?.stop();
    double = undefined;
    if (own) for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
    else await removeFreshDirs();
  };
  return { fixture, setUp, tearDown };
}

/**
 * One live daemon setup for a test file: registers the hooks that make a Bot
 * API double (`options.double`, default `liveDouble`) before each test, or
 * before the file with `scope: "file"`, and afterwards SIGKILL every daemon
 * started, stop the double and remove the temp dirs (`freshDirs`) made
 * meanwhile. With `start: true` a daemon (with `options.env`) is started
 * right after the double; otherwise the test calls `start`.
 */
export function useLiveDaemon(options: LiveOptions & { scope?: "test" | "file" } = {}): LiveDaemonFixture {
  const { fixture, setUp, tearDown } = makeFixture(options, false);
  if (options.scope === "file") {
    beforeAll(setUp);
    afterAll(tearDown);
  } else {
    beforeEach(setUp);
    afterEach(tearDown);
  }
  return fixture;
}

/**
 * `it` with a live fixture of each test's own, `({ live }) => ...`, for tests
 * that may run at once (`describe.concurrent`): most live tests spend their
 * seconds waiting out an undo window, a reminder or an expiry on the real
 * clock, and several such waits overlap at almost no cost. Each test has its
 * own Bot API double, daemons and dirs, and its teardown ends only those.
 */
export function liveTest(options: LiveOptions = {}) {
  return test.extend<{ live: LiveDaemonFixture }>({
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern; it has none.
    live: async ({}, use) => {
      const { fixture, setUp, tearDown } = makeFixture(options, true);
      try {
        await setUp();
        await use(fixture);
      } finally {
        await tearDown();
      }
    },
  });
}

/** The audit log's lines. */
export async function auditLines(harnessDir: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(join(harnessDir, "swarm.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

/** A draft's record as the daemon's API shows it. */
export async function draftRecord(daemon: DaemonProcess, draftId: string): Promise<Record<string, any>> {
  return (await daemon.request("GET", `/drafts/${draftId}`)).body;
}

/** Submits `body` through the daemon's API (201) and waits until its review post is out: the record, pending. */
export async function submitPending(daemon: DaemonProcess, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await daemon.request("POST", "/drafts", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return eventually(async () => {
    const rec = await draftRecord(daemon, res.body.draft_id);
    return rec.status === "pending" ? rec : null;
  });
}

/** The confirmation question asked as a reply to a review post (a message whose first button is ✅), and that button's data. */
export function confirmationQuestion(
  double: TelegramDouble,
  chatId: number,
  reviewMessageId: number,
): Promise<{ message: SentMessage; data: string }> {
  const first = (m: SentMessage) =>
    (m.replyMarkup as any)?.inline_keyboard?.[0]?.[0] as { text?: string; callback_data?: string } | undefined;
  return eventually(
    () => {
      const message = double.messages(chatId).find((m) => m.replyToMessageId === reviewMessageId && first(m)?.text?.startsWith("✅"));
      return message && { message, data: first(message)!.callback_data as string };
    },
    10_000,
    "the confirmation question",
  );
}
