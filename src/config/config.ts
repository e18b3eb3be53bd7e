import { z } from "zod";
import { hideTokenShapes } from "../log/token-shape.js";
import {
  count,
  duration,
  got,
  isHttpUrl,
  MAX_RETENTION_MS,
  MAX_TTL_MS,
  optional,
  remindBefore,
  undoWindow,
  unsetIfBlank,
  wholeNumber,
} from "./env-fields.js";

export { MAX_RETENTION_MS, MAX_TTL_MS, MAX_UNDO_WINDOW_MS } from "./env-fields.js";
import { isKnownTimeZone } from "./time-zone.js";
import { parseWeekday, type Weekday } from "../clock/week.js";

/** Everything the daemon is configured with, parsed once from the environment. */
export interface Config {
  readonly mode: "live" | "test";
  readonly telegram: {
    readonly token: string | null;
    readonly apiRoot: string;
    /** TELEGRAM_TIMEOUT_SECONDS: how long one Bot API call may take before it counts as lost (default 60). */
    readonly timeoutSeconds: number;
    /** TELEGRAM_RATE_SCALE: divides the daemon's own rate-limit intervals, retry backoffs and audience cache (default 1; >1 only against a local test double). */
    readonly rateScale: number;
  };
  readonly reviewChatId: string;
  readonly reviewThreadId: number | null;
  /**
   * REVIEW_TOPICS: `role` (the default) posts each role's drafts in a topic of its own where the review
   * chat has topics; `off` keeps one stream. REVIEW_THREAD_ID, when set, wins. `explicit`: set in the
   * environment (then a chat without topics is said once in the review chat).
   */
  readonly reviewTopics: { readonly mode: "role" | "off"; readonly explicit: boolean };
  /** User ids whose decisions count. Never usernames. */
  readonly reviewerIds: ReadonlySet<number>;
  /**
   * OWNER_USER_ID: the person drafts speak as (a reviewer); only his Telegram Business
   * connection sends as the owner. Default: the first id in REVIEWER_USER_IDS.
   */
  readonly ownerUserId: number;
  readonly harnessDir: string;
  readonly draftTtlMs: number;
  /** DRAFT_RETENTION: how long a final draft stays in telegram_drafts.jsonl before it moves to archive/ (default 30d). */
  readonly draftRetentionMs: number;
  readonly deferForMs: number;
  /** UNDO_WINDOW: how long an approval waits before its send, in ms (default 10 s); 0 = send at once. */
  readonly undoWindowMs: number;
  /** REMIND_BEFORE: a draft still awaiting a decision this long before it expires gets one reminder (default 1 h); 0 = off. */
  readonly remindBeforeMs: number;
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
  /** REPORT_DAY: the weekday whose 09:00 (REVIEW_TIMEZONE) brings the week's report picture to the review chat; null = off. */
  readonly reportDay: Weekday | null;
}

/** A configuration problem: the message names the variable and says how to fix it. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(
      `The configuration has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}:\n` +
        problems.map((p) => `  - ${withoutSecrets(p)}`).join("\n"),
    );
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

/**
 * Every variable the daemon reads, each coerced to its type with the problem
 * text the operator sees when it is wrong. zod collects every problem of
 * every variable in one pass; `requirements` adds those that depend on other
 * variables (test mode, a group review chat, callbacks).
 */
const envSchema = z.object({
  TAO_DRAFT_REVIEW_TEST: optional(z.string()),
  TELEGRAM_BOT_TOKEN: optional(
    z.string().regex(BOT_TOKEN_SHAPE, {
      error:
        "TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, then 20+ letters, digits, _ or -). Copy it again from @BotFather.",
    }),
  ),
  TELEGRAM_API_ROOT: optional(
    z
      .string()
      .transform((root) => root.replace(/\/+$/, ""))
      .pipe(
        z.string().regex(/^https?:\/\/[^\s/]+/, {
          error: (iss) => `TELEGRAM_API_ROOT must be an http(s) URL such as https://api.telegram.org ${got(iss)}.`,
        }),
      ),
  ),
  REVIEW_CHAT_ID: optional(
    z.string().regex(NUMERIC_ID, {
      error: (iss) =>
        `REVIEW_CHAT_ID must be a numeric chat id ${got(iss)}; @usernames are not accepted for the review chat. ${FIND_CHAT_ID}`,
    }),
  ),
  REVIEW_THREAD_ID: optional(
    wholeNumber(
      1,
      Number.MAX_SAFE_INTEGER,
      (g) =>
        `REVIEW_THREAD_ID must be a positive whole number, the forum topic's message_thread_id ${g}. Leave it unset to post in the chat itself.`,
    ),
  ),
  REVIEW_TOPICS: optional(
    z.enum(["role", "off"], {
      error: (iss) =>
        `REVIEW_TOPICS must be "role" (a topic per role where the review chat has topics; the default) or "off" (one stream) ${got(iss)}.`,
    }),
  ),
  REVIEWER_USER_IDS: optional(
    z
      .string()
      .transform((text) =>
        text
          .split(",")
          .map((p) => p.trim())
          .filter((p) => p !== ""),
      )
      .pipe(
        z
          .array(
            z.string().regex(/^[1-9]\d{0,15}$/, {
              error: (iss) =>
                `REVIEWER_USER_IDS must list positive numeric user ids separated by commas; "${String(iss.input)}" is not one (usernames do not count: they can change hands).`,
            }),
          )
          .min(1, { error: "REVIEWER_USER_IDS is set but lists no user id. List at least one, or unset it for a private review chat." }),
      )
      .transform((ids) => new Set(ids.map(Number))),
  ),
  OWNER_USER_ID: optional(
    wholeNumber(
      1,
      Number.MAX_SAFE_INTEGER,
      (g) =>
        `OWNER_USER_ID must be a positive numeric user id ${g}: the Telegram account drafts speak as, whose Telegram Business connection alone sends as the owner (usernames do not count). Leave it unset for the first id in REVIEWER_USER_IDS.`,
    ),
  ),
  HARNESS_DIR: optional(z.string()),
  DRAFT_TTL: optional(duration("DRAFT_TTL", MAX_TTL_MS)),
  DEFER_FOR: optional(duration("DEFER_FOR", MAX_TTL_MS)),
  DRAFT_RETENTION: optional(duration("DRAFT_RETENTION", MAX_RETENTION_MS)),
  UNDO_WINDOW: optional(undoWindow()),
  REMIND_BEFORE: optional(remindBefore()),
  DRAFT_API_HOST: optional(z.string()),
  DRAFT_API_PORT: optional(wholeNumber(0, 65535, (g) => `DRAFT_API_PORT must be a port number from 0 to 65535 ${g}.`)),
  DRAFT_API_TOKEN: optional(
    z.string().min(16, {
      error:
        "DRAFT_API_TOKEN is shorter than 16 characters. Use a long random value (e.g. `openssl rand -hex 32`), or unset it and the daemon generates one.",
    }),
  ),
  PII_REDACTION: optional(z.enum(["redact", "off"], { error: (iss) => `PII_REDACTION must be "redact" or "off" ${got(iss)}.` })),
  PII_ALLOW: optional(z.string()),
  LOG_LEVEL: optional(z.string()),
  TELEGRAM_TIMEOUT_SECONDS: optional(count("TELEGRAM_TIMEOUT_SECONDS", 1, 600, 60)),
  TELEGRAM_RATE_SCALE: optional(count("TELEGRAM_RATE_SCALE", 1, 1000, 1)),
  DRAFT_STORE_COMPACT_AFTER_LINES: optional(count("DRAFT_STORE_COMPACT_AFTER_LINES", 1, 10_000_000, 10_000)),
  DIGEST_HOUR: optional(
    z
      .string()
      .regex(/^\d{1,2}$/, { error: (iss) => digestProblem(got(iss)) })
      .transform(Number)
      .pipe(z.number().max(23, { error: (iss) => digestProblem(got(iss)) })),
  ),
  CALLBACK_URL: optional(
    z
      .string()
      .refine(isHttpUrl, { error: (iss) => `CALLBACK_URL must be an http(s) URL such as http://127.0.0.1:9000/draft-events ${got(iss)}.` }),
  ),
  CALLBACK_SECRET: optional(z.string()),
  AUDIENCE_CONFIRM_OVER: optional(count("AUDIENCE_CONFIRM_OVER", 0, 1_000_000_000, 200)),
  REVIEW_TIMEZONE: optional(
    z.string().refine(isKnownTimeZone, {
      error: (iss) =>
        `REVIEW_TIMEZONE must be an IANA time zone such as Europe/Berlin or America/New_York ${got(iss)}; leave it unset for the system's zone.`,
    }),
  ),
  REPORT_DAY: optional(
    z
      .string()
      .refine((text) => parseWeekday(text) !== null, {
        error: (iss) =>
          `REPORT_DAY must be a weekday such as mon or friday ${got(iss)}: the week's report is posted in the review chat at 09:00 (REVIEW_TIMEZONE) that day. Leave it unset for no weekly report.`,
      })
      .transform((text) => parseWeekday(text)!),
  ),
});

function digestProblem(g: string): string {
  return `DIGEST_HOUR must be an hour of the day from 0 to 23, local time ${g}; leave it unset for no daily digest.`;
}

/** The variables as set, blank ones taken out: what `requirements` looks at. */
type SetVariables = Readonly<Record<keyof z.input<typeof envSchema>, string | undefined>>;

/**
 * The problems that depend on more than one variable: what live mode needs,
 * who decides in a group review chat, a callback's secret.
 */
function requirements(set: SetVariables): string[] {
  const problems: string[] = [];
  const live = set.TAO_DRAFT_REVIEW_TEST !== "1";
  if (live && set.TELEGRAM_BOT_TOKEN === undefined) {
    problems.push(
      "TELEGRAM_BOT_TOKEN is not set. Get a token from @BotFather (/newbot) and put it in .env; or set TAO_DRAFT_REVIEW_TEST=1 to try test mode without Telegram.",
    );
  }
  if (live && set.REVIEW_CHAT_ID === undefined) {
    problems.push(`REVIEW_CHAT_ID is not set: it is the numeric id of the chat where drafts are posted for review. ${FIND_CHAT_ID}`);
  }
  const chat = set.REVIEW_CHAT_ID ?? TEST_MODE_REVIEW_CHAT_ID;
  if (set.REVIEWER_USER_IDS === undefined && NUMERIC_ID.test(chat) && chat.startsWith("-")) {
    problems.push(
      "REVIEWER_USER_IDS is not set, and the review chat is a group: say whose decisions count, as comma-separated numeric user ids (e.g. REVIEWER_USER_IDS=123456789). `npx draft-review setup` prints yours.",
    );
  }
  problems.push(...ownerRequirement(set, chat));
  if (set.CALLBACK_URL === undefined && set.CALLBACK_SECRET !== undefined) {
    problems.push(
      "CALLBACK_SECRET is set but CALLBACK_URL is not: set CALLBACK_URL to the receiver's http(s) address, or unset CALLBACK_SECRET.",
    );
  }
  if (set.CALLBACK_URL !== undefined && (set.CALLBACK_SECRET === undefined || set.CALLBACK_SECRET.length < 16)) {
    problems.push(
      "CALLBACK_SECRET must be set, 16 characters or more, when CALLBACK_URL is: every callback is signed with it (e.g. `openssl rand -hex 32`); give the receiver the same value.",
    );
  }
  return problems;
}

/** The reviewers as written (REVIEWER_USER_IDS, else a private review chat's user), in order. */
function reviewerList(set: SetVariables, chat: string): string[] {
  if (set.REVIEWER_USER_IDS === undefined) return NUMERIC_ID.test(chat) && !chat.startsWith("-") ? [chat] : [];
  return set.REVIEWER_USER_IDS.split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** OWNER_USER_ID must be one of the reviewers: drafts speak as him, and only reviewers decide. */
function ownerRequirement(set: SetVariables, chat: string): string[] {
  const owner = set.OWNER_USER_ID;
  if (owner === undefined || !/^[1-9]\d{0,15}$/.test(owner)) return [];
  const reviewers = reviewerList(set, chat);
  if (reviewers.length === 0 || reviewers.some((id) => Number(id) === Number(owner))) return [];
  if (set.REVIEWER_USER_IDS === undefined) {
    return [
      `OWNER_USER_ID ${owner} is not a reviewer: drafts speak as the owner, so he must be one, and with REVIEWER_USER_IDS unset the only reviewer is the private review chat's user (${reviewers[0]}). Set REVIEWER_USER_IDS to include ${owner}, or unset OWNER_USER_ID.`,
    ];
  }
  return [
    `OWNER_USER_ID ${owner} is not in REVIEWER_USER_IDS (${reviewers.join(", ")}): drafts speak as the owner, so he must be a reviewer. Add ${owner} to REVIEWER_USER_IDS, or unset OWNER_USER_ID for the first reviewer (${reviewers[0]}).`,
  ];
}

/**
 * Parses the environment into a `Config`. zod coerces every variable and
 * collects every problem before failing, so the operator fixes them in one
 * go; the message never shows a value that looks like a token.
 */
export function loadConfig(rawEnv: Record<string, string | undefined>): Config {
  const set = Object.fromEntries(Object.keys(envSchema.shape).map((name) => [name, unsetIfBlank(rawEnv[name])])) as SetVariables;
  const parsed = envSchema.safeParse(set);
  const problems = [...(parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)), ...requirements(set)];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const env = parsed.data;
  const reviewChatId = env.REVIEW_CHAT_ID ?? TEST_MODE_REVIEW_CHAT_ID;
  const privateChat = !reviewChatId.startsWith("-");
  const reviewerIds = env.REVIEWER_USER_IDS ?? (privateChat ? new Set([Number(reviewChatId)]) : new Set<number>());
  return {
    mode: env.TAO_DRAFT_REVIEW_TEST === "1" ? "test" : "live",
    telegram: {
      token: env.TELEGRAM_BOT_TOKEN ?? null,
      apiRoot: env.TELEGRAM_API_ROOT ?? "https://api.telegram.org",
      timeoutSeconds: env.TELEGRAM_TIMEOUT_SECONDS ?? 60,
      rateScale: env.TELEGRAM_RATE_SCALE ?? 1,
    },
    reviewChatId,
    reviewThreadId: env.REVIEW_THREAD_ID ?? null,
    reviewTopics: { mode: env.REVIEW_TOPICS ?? "role", explicit: env.REVIEW_TOPICS !== undefined },
    reviewerIds,
    // requirements() made sure there is a reviewer, and that OWNER_USER_ID is one.
    ownerUserId: env.OWNER_USER_ID ?? [...reviewerIds][0]!,
    harnessDir: env.HARNESS_DIR ?? ".harness",
    draftTtlMs: env.DRAFT_TTL ?? DEFAULT_DURATION_MS,
    deferForMs: env.DEFER_FOR ?? DEFAULT_DURATION_MS,
    draftRetentionMs: env.DRAFT_RETENTION ?? DEFAULT_RETENTION_MS,
    undoWindowMs: env.UNDO_WINDOW ?? DEFAULT_UNDO_WINDOW_MS,
    remindBeforeMs: env.REMIND_BEFORE ?? DEFAULT_REMIND_BEFORE_MS,
    api: { host: env.DRAFT_API_HOST ?? "127.0.0.1", port: env.DRAFT_API_PORT ?? 8787, token: env.DRAFT_API_TOKEN ?? null },
    piiRedaction: env.PII_REDACTION ?? "redact",
    piiAllow: env.PII_ALLOW ?? null,
    logLevel: env.LOG_LEVEL ?? "info",
    digestHour: env.DIGEST_HOUR ?? null,
    storeCompactAfterLines: env.DRAFT_STORE_COMPACT_AFTER_LINES ?? null,
    callback: env.CALLBACK_URL === undefined ? null : { url: env.CALLBACK_URL, secret: env.CALLBACK_SECRET ?? "" },
    audienceConfirmOver: env.AUDIENCE_CONFIRM_OVER ?? 200,
    reviewTimeZone: env.REVIEW_TIMEZONE ?? null,
    reportDay: env.REPORT_DAY ?? null,
  };
}

/** UNDO_WINDOW when unset: 10 s. */
const DEFAULT_UNDO_WINDOW_MS = 10_000;
/** REMIND_BEFORE when unset: an hour. */
const DEFAULT_REMIND_BEFORE_MS = 3_600_000;
/** DRAFT_TTL and DEFER_FOR when unset: 24h. */
const DEFAULT_DURATION_MS = 24 * 3_600_000;
/** DRAFT_RETENTION when unset: 30d. */
const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;
