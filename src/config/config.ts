import { z } from "zod";
import { hideTokenShapes } from "../log/token-shape.js";
import { parseDuration } from "./duration.js";
import { isKnownTimeZone } from "./time-zone.js";

/** Everything the daemon is configured with, parsed once from the environment. */
export interface Config {
  readonly mode: "live" | "test";
  readonly telegram: {
    readonly token: string | null;
    readonly apiRoot: string;
    /** TELEGRAM_TIMEOUT_SECONDS: how long one Bot API call may take before it counts as lost (default 60). */
    readonly timeoutSeconds: number;
    /** TELEGRAM_RATE_SCALE: divides the daemon's own rate-limit intervals (default 1; >1 only against a local test double). */
    readonly rateScale: number;
  };
  readonly reviewChatId: string;
  readonly reviewThreadId: number | null;
  /** User ids whose decisions count. Never usernames. */
  readonly reviewerIds: ReadonlySet<number>;
  readonly harnessDir: string;
  readonly draftTtlMs: number;
  /** DRAFT_RETENTION: how long a final draft stays in telegram_drafts.jsonl before it moves to archive/ (default 30d). */
  readonly draftRetentionMs: number;
  readonly deferForMs: number;
  readonly api: { readonly host: string; readonly port: number; readonly token: string | null };
  readonly piiRedaction: "redact" | "off";
  /** PII_ALLOW: comma-separated values redaction never removes (the owner's own email, phone, handle); null = none. */
  readonly piiAllow: string | null;
  readonly logLevel: string;
  /** DRAFT_STORE_COMPACT_AFTER_LINES: compact the draft store past this many lines; null = the store's default (10000). */
  readonly storeCompactAfterLines: number | null;
  /** DIGEST_HOUR: the local hour (0-23) of the daily digest in the review chat; null = no digest. */
  readonly digestHour: number | null;
  /** CALLBACK_URL and CALLBACK_SECRET: where every feed event is POSTed, signed with the secret; null = no callbacks. */
  readonly callback: { readonly url: string; readonly secret: string } | null;
  /** AUDIENCE_CONFIRM_OVER: a 👍 for a group or channel with more members than this needs one more tap (default 200). */
  readonly audienceConfirmOver: number;
  /** REVIEW_TIMEZONE: the IANA zone of every time shown to a person; null = the system's zone. */
  readonly reviewTimeZone: string | null;
}

/** A configuration problem: the message names the variable and says how to fix it. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`The configuration has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}:\n` +
      problems.map((p) => `  - ${withoutSecrets(p)}`).join("\n"));
  }
}

/** A quoted value that looks like a secret: 16+ characters of a token's alphabet, letters and digits mixed. */
const SECRET_LOOKING = /"(?=[^"]*[A-Za-z])(?=[^"]*\d)[A-Za-z0-9_:+=-]{16,}"/g;

/**
 * A problem's text with every value that looks like a token hidden: a bot
 * token pasted into the wrong variable must not reach a terminal or a log.
 */
function withoutSecrets(problem: string): string {
  return hideTokenShapes(problem, "<a bot token, not shown>").replace(SECRET_LOOKING, "a value that looks like a secret (not shown)");
}

/** The review chat used in test mode when REVIEW_CHAT_ID is not set; its user is the reviewer. */
export const TEST_MODE_REVIEW_CHAT_ID = "100000001";

const FIND_CHAT_ID =
  "To find it: send /start to your bot from the review chat, then run `npx draft-review setup`, " +
  "or open <TELEGRAM_API_ROOT>/bot<token>/getUpdates and read message.chat.id. " +
  "A private chat's id is a positive number; a group's is negative (supergroups start with -100).";

const NUMERIC_ID = /^-?[1-9]\d{0,15}$/;

/** What a bot token looks like: digits, a colon, then 20+ letters, digits, _ or - (setup checks it too). */
export const BOT_TOKEN_SHAPE = /^\d+:[A-Za-z0-9_-]{20,}$/;

const envSchema = z.object({
  TAO_DRAFT_REVIEW_TEST: z.string().optional(),
  TELEGRAM_BOT_TOKEN: z.string().optional(),
  TELEGRAM_API_ROOT: z.string().optional(),
  REVIEW_CHAT_ID: z.string().optional(),
  REVIEW_THREAD_ID: z.string().optional(),
  REVIEWER_USER_IDS: z.string().optional(),
  HARNESS_DIR: z.string().optional(),
  DRAFT_TTL: z.string().optional(),
  DEFER_FOR: z.string().optional(),
  DRAFT_API_HOST: z.string().optional(),
  DRAFT_API_PORT: z.string().optional(),
  DRAFT_API_TOKEN: z.string().optional(),
  PII_REDACTION: z.string().optional(),
  PII_ALLOW: z.string().optional(),
  LOG_LEVEL: z.string().optional(),
  TELEGRAM_TIMEOUT_SECONDS: z.string().optional(),
  TELEGRAM_RATE_SCALE: z.string().optional(),
  DRAFT_STORE_COMPACT_AFTER_LINES: z.string().optional(),
  DIGEST_HOUR: z.string().optional(),
  DRAFT_RETENTION: z.string().optional(),
  CALLBACK_URL: z.string().optional(),
  CALLBACK_SECRET: z.string().optional(),
  AUDIENCE_CONFIRM_OVER: z.string().optional(),
  REVIEW_TIMEZONE: z.string().optional(),
});

/** Treats an empty string as unset, as shells and `.env` files mean it. */
function value(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

/**
 * Parses the environment into a `Config`. Collects every problem before
 * failing, so the operator fixes them in one go.
 */
export function loadConfig(rawEnv: Record<string, string | undefined>): Config {
  const env = envSchema.parse(rawEnv) as Record<string, string | undefined>;
  const get = (name: string) => value(env, name);
  const problems: string[] = [];
  const mode = get("TAO_DRAFT_REVIEW_TEST") === "1" ? "test" : "live";

  const token = get("TELEGRAM_BOT_TOKEN") ?? null;
  if (mode === "live" && token === null) {
    problems.push("TELEGRAM_BOT_TOKEN is not set. Get a token from @BotFather (/newbot) and put it in .env; or set TAO_DRAFT_REVIEW_TEST=1 to try test mode without Telegram.");
  } else if (token !== null && !BOT_TOKEN_SHAPE.test(token)) {
    problems.push("TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, then 20+ letters, digits, _ or -). Copy it again from @BotFather.");
  }

  const apiRoot = (get("TELEGRAM_API_ROOT") ?? "https://api.telegram.org").replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s/]+/.test(apiRoot)) {
    problems.push(`TELEGRAM_API_ROOT must be an http(s) URL such as https://api.telegram.org (got "${apiRoot}").`);
  }

  let reviewChatId = get("REVIEW_CHAT_ID");
  if (reviewChatId === undefined) {
    if (mode === "live") problems.push(`REVIEW_CHAT_ID is not set: it is the numeric id of the chat where drafts are posted for review. ${FIND_CHAT_ID}`);
    reviewChatId = TEST_MODE_REVIEW_CHAT_ID;
  } else if (!NUMERIC_ID.test(reviewChatId)) {
    problems.push(`REVIEW_CHAT_ID must be a numeric chat id (got "${reviewChatId}"); @usernames are not accepted for the review chat. ${FIND_CHAT_ID}`);
  }

  const threadText = get("REVIEW_THREAD_ID");
  const reviewThreadId = threadText === undefined ? null : Number(threadText);
  if (reviewThreadId !== null && !(Number.isSafeInteger(reviewThreadId) && reviewThreadId > 0)) {
    problems.push(`REVIEW_THREAD_ID must be a positive whole number, the forum topic's message_thread_id (got "${threadText}"). Leave it unset to post in the chat itself.`);
  }

  const reviewerIds = parseReviewers(get("REVIEWER_USER_IDS"), reviewChatId, problems);

  const draftTtlMs = durationOf(get, "DRAFT_TTL", problems);
  const deferForMs = durationOf(get, "DEFER_FOR", problems);
  const draftRetentionMs = durationOf(get, "DRAFT_RETENTION", problems, "30d");

  const portText = get("DRAFT_API_PORT") ?? "8787";
  const port = Number(portText);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    problems.push(`DRAFT_API_PORT must be a port number from 0 to 65535 (got "${portText}").`);
  }
  const apiToken = get("DRAFT_API_TOKEN") ?? null;
  if (apiToken !== null && apiToken.length < 16) {
    problems.push("DRAFT_API_TOKEN is shorter than 16 characters. Use a long random value (e.g. `openssl rand -hex 32`), or unset it and the daemon generates one.");
  }

  const redaction = get("PII_REDACTION") ?? "redact";
  if (redaction !== "redact" && redaction !== "off") {
    problems.push(`PII_REDACTION must be "redact" or "off" (got "${redaction}").`);
  }

  const digestText = get("DIGEST_HOUR");
  const digestHour = digestText === undefined ? null : Number(digestText);
  if (digestHour !== null && !(/^\d{1,2}$/.test(digestText!) && digestHour <= 23)) {
    problems.push(`DIGEST_HOUR must be an hour of the day from 0 to 23, local time (got "${digestText}"); leave it unset for no daily digest.`);
  }

  const timeoutSeconds = numberOf(get, "TELEGRAM_TIMEOUT_SECONDS", 60, problems, { min: 1, max: 600 });
  const rateScale = numberOf(get, "TELEGRAM_RATE_SCALE", 1, problems, { min: 1, max: 1000 });
  const compactText = get("DRAFT_STORE_COMPACT_AFTER_LINES");
  const storeCompactAfterLines =
    compactText === undefined ? null : numberOf(get, "DRAFT_STORE_COMPACT_AFTER_LINES", 10_000, problems, { min: 1, max: 10_000_000 });

  const callback = callbackOf(get, problems);
  const audienceConfirmOver = numberOf(get, "AUDIENCE_CONFIRM_OVER", 200, problems, { min: 0, max: 1_000_000_000 });
  const reviewTimeZone = get("REVIEW_TIMEZONE") ?? null;
  if (reviewTimeZone !== null && !isKnownTimeZone(reviewTimeZone)) {
    problems.push(`REVIEW_TIMEZONE must be an IANA time zone such as Europe/Berlin or America/New_York (got "${reviewTimeZone}"); leave it unset for the system's zone.`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    mode,
    telegram: { token, apiRoot, timeoutSeconds, rateScale },
    reviewChatId,
    reviewThreadId,
    reviewerIds,
    harnessDir: get("HARNESS_DIR") ?? ".harness",
    draftTtlMs,
    draftRetentionMs,
    deferForMs,
    api: { host: get("DRAFT_API_HOST") ?? "127.0.0.1", port, token: apiToken },
    piiRedaction: redaction as "redact" | "off",
    piiAllow: get("PII_ALLOW") ?? null,
    logLevel: get("LOG_LEVEL") ?? "info",
    digestHour,
    storeCompactAfterLines,
    callback,
    audienceConfirmOver,
    reviewTimeZone,
  };
}

/** CALLBACK_URL (an http(s) URL) with CALLBACK_SECRET (16+ characters), or null when CALLBACK_URL is unset. */
function callbackOf(get: (n: string) => string | undefined, problems: string[]): { url: string; secret: string } | null {
  const url = get("CALLBACK_URL");
  const secret = get("CALLBACK_SECRET");
  if (url === undefined) {
    if (secret !== undefined) problems.push("CALLBACK_SECRET is set but CALLBACK_URL is not: set CALLBACK_URL to the receiver's http(s) address, or unset CALLBACK_SECRET.");
    return null;
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    problems.push(`CALLBACK_URL must be an http(s) URL such as http://127.0.0.1:9000/draft-events (got "${url}").`);
  }
  if (secret === undefined || secret.length < 16) {
    problems.push("CALLBACK_SECRET must be set, 16 characters or more, when CALLBACK_URL is: every callback is signed with it (e.g. `openssl rand -hex 32`); give the receiver the same value.");
  }
  return { url, secret: secret ?? "" };
}

/** A whole number in [min, max] from the environment, or its default when unset. */
function numberOf(
  get: (n: string) => string | undefined,
  name: string,
  fallback: number,
  problems: string[],
  range: { min: number; max: number },
): number {
  const text = get(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!(/^\d+$/.test(text) && n >= range.min && n <= range.max)) {
    problems.push(`${name} must be a whole number from ${range.min} to ${range.max} (got "${text}"); leave it unset for ${fallback}.`);
    return fallback;
  }
  return n;
}

function durationOf(get: (n: string) => string | undefined, name: string, problems: string[], fallback = "24h"): number {
  const text = get(name) ?? fallback;
  const ms = parseDuration(text);
  if (ms === null) problems.push(`${name} must be a duration such as 90s, 15m, 24h or 30d (got "${text}").`);
  return ms ?? 0;
}

function parseReviewers(text: string | undefined, reviewChatId: string, problems: string[]): Set<number> {
  if (text === undefined) {
    if (NUMERIC_ID.test(reviewChatId) && !reviewChatId.startsWith("-")) return new Set([Number(reviewChatId)]);
    if (NUMERIC_ID.test(reviewChatId)) {
      problems.push("REVIEWER_USER_IDS is not set, and the review chat is a group: say whose decisions count, as comma-separated numeric user ids (e.g. REVIEWER_USER_IDS=123456789). `npx draft-review setup` prints yours.");
    }
    return new Set();
  }
  const ids = new Set<number>();
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    if (!/^[1-9]\d{0,15}$/.test(part)) {
      problems.push(`REVIEWER_USER_IDS must list positive numeric user ids separated by commas; "${part}" is not one (usernames do not count: they can change hands).`);
      continue;
    }
    ids.add(Number(part));
  }
  if (ids.size === 0 && !problems.some((p) => p.startsWith("REVIEWER_USER_IDS"))) {
    problems.push("REVIEWER_USER_IDS is set but lists no user id. List at least one, or unset it for a private review chat.");
  }
  return ids;
}
