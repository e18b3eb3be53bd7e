import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { formatDuration, MAX_DURATION_MS, parseDuration, readDuration } from "../../src/config/duration.js";

const TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
const live = { TELEGRAM_BOT_TOKEN: TOKEN, REVIEW_CHAT_ID: "555000111" };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

describe("loadConfig", () => {
  it("takes defaults from the contract", () => {
    const c = loadConfig(live);
    expect(c).toMatchObject({
      mode: "live",
      telegram: { token: TOKEN, apiRoot: "https://api.telegram.org" },
      reviewChatId: "555000111",
      reviewThreadId: null,
      harnessDir: ".harness",
      draftTtlMs: 86_400_000,
      deferForMs: 86_400_000,
      api: { host: "127.0.0.1", port: 8787, token: null },
      piiRedaction: "redact",
    });
    expect([...c.reviewerIds]).toEqual([555000111]);
  });

  it("needs no token and no chat in test mode", () => {
    const c = loadConfig({ TAO_DRAFT_REVIEW_TEST: "1" });
    expect(c.mode).toBe("test");
    expect(c.reviewerIds.size).toBe(1);
  });

  it("names a missing token and says where to get one", () => {
    expect(problems({ REVIEW_CHAT_ID: "1" })).toEqual([expect.stringMatching(/^TELEGRAM_BOT_TOKEN .*@BotFather/)]);
  });

  it("names a missing or malformed REVIEW_CHAT_ID and says how to find it", () => {
    const [missing] = problems({ TELEGRAM_BOT_TOKEN: TOKEN });
    expect(missing).toMatch(/^REVIEW_CHAT_ID is not set.*To find it/);
    const [bad] = problems({ ...live, REVIEW_CHAT_ID: "@mychat" });
    expect(bad).toMatch(/^REVIEW_CHAT_ID must be a numeric chat id.*To find it/);
  });

  it("refuses a group review chat without REVIEWER_USER_IDS", () => {
    expect(problems({ ...live, REVIEW_CHAT_ID: "-1001234" })).toEqual([expect.stringMatching(/^REVIEWER_USER_IDS is not set/)]);
    const c = loadConfig({ ...live, REVIEW_CHAT_ID: "-1001234", REVIEWER_USER_IDS: "11, 22" });
    expect([...c.reviewerIds]).toEqual([11, 22]);
  });

  it("OWNER_USER_ID: the first reviewer by default, the private chat's user without REVIEWER_USER_IDS, else a reviewer named", () => {
    expect(loadConfig(live).ownerUserId).toBe(555000111);
    expect(loadConfig({ ...live, REVIEWER_USER_IDS: "1001, 2002" }).ownerUserId).toBe(1001);
    expect(loadConfig({ ...live, REVIEWER_USER_IDS: "1001,2002", OWNER_USER_ID: " 2002 " }).ownerUserId).toBe(2002);
    expect(loadConfig({ ...live, REVIEW_CHAT_ID: "-1001234", REVIEWER_USER_IDS: "11,22" }).ownerUserId).toBe(11);
    expect(loadConfig({ TAO_DRAFT_REVIEW_TEST: "1" }).ownerUserId).toBe([...loadConfig({ TAO_DRAFT_REVIEW_TEST: "1" }).reviewerIds][0]);
  });

  it("OWNER_USER_ID: a malformed id or one who is no reviewer refuses the start, naming the variable", () => {
    for (const bad of ["@anna_o", "-5", "12ab", "0"]) {
      expect(problems({ ...live, OWNER_USER_ID: bad })).toEqual([
        expect.stringMatching(new RegExp(`^OWNER_USER_ID must be a positive numeric user id \\(got "${bad}"\\)`)),
      ]);
    }
    expect(problems({ ...live, REVIEWER_USER_IDS: "1001,2002", OWNER_USER_ID: "3003" })).toEqual([
      "OWNER_USER_ID 3003 is not in REVIEWER_USER_IDS (1001, 2002): drafts speak as the owner, so he must be a reviewer. Add 3003 to REVIEWER_USER_IDS, or unset OWNER_USER_ID for the first reviewer (1001).",
    ]);
    expect(problems({ ...live, OWNER_USER_ID: "3003" })).toEqual([
      expect.stringMatching(/^OWNER_USER_ID 3003 is not a reviewer: .*the private review chat's user \(555000111\)/),
    ]);
  });

  it("refuses usernames as reviewers", () => {
    expect(problems({ ...live, REVIEWER_USER_IDS: "@owner" })[0]).toMatch(/usernames do not count/);
  });

  it.each(["DRAFT_TTL", "DEFER_FOR"])("names a bad %s", (name) => {
    expect(problems({ ...live, [name]: "soon" })).toEqual([expect.stringMatching(new RegExp(`^${name} must be a duration`))]);
  });

  it("reports every problem at once", () => {
    expect(problems({ DRAFT_API_PORT: "99999", PII_REDACTION: "maybe" })).toHaveLength(4);
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ ...live, REVIEW_THREAD_ID: "", DRAFT_TTL: " " }).draftTtlMs).toBe(86_400_000);
  });
});

describe("durations", () => {
  it.each([
    ["90s", 90_000],
    ["15m", 900_000],
    ["24h", 86_400_000],
    ["500ms", 500],
    ["2d", 172_800_000],
  ])("parses %s", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["", "24", "h", "-5m", "0s", "1 week"])("refuses %j", (text) => expect(parseDuration(text)).toBeNull());

  // Issue 19 row 12: a huge duration is refused naming the limit, never a hang or an Invalid Date later.
  it("refuses a duration past the limit, naming it", () => {
    expect(readDuration("3650d")).toEqual({ ok: true, ms: MAX_DURATION_MS });
    expect(readDuration("3651d")).toEqual({ ok: false, error: '"3651d" is longer than the limit of 3650d' });
    expect(readDuration("100000001d")).toMatchObject({ ok: false, error: expect.stringContaining("limit of 3650d") });
    expect(readDuration("2h", 3_600_000)).toMatchObject({ ok: false, error: expect.stringContaining("limit of 1h") });
    expect(parseDuration("1e400d")).toBeNull();
    expect(parseDuration(`${"9".repeat(400)}ms`)).toBeNull();
  });

  it.each([
    ["DRAFT_TTL", "366d", "365d"],
    ["DEFER_FOR", "100000001d", "365d"],
    ["DRAFT_RETENTION", "3651d", "3650d"],
    ["UNDO_WINDOW", "61m", "1h"],
    ["REMIND_BEFORE", "366d", "365d"],
  ])("refuses %s=%s naming the variable and the limit %s", (name, value, limit) => {
    expect(problems({ ...live, [name]: value })).toEqual([expect.stringMatching(new RegExp(`^${name} must be .*at most ${limit}\\b`))]);
  });

  it("formats as the operator writes", () => {
    expect(formatDuration(86_400_000)).toBe("24h");
    expect(formatDuration(90_000)).toBe("1m30s");
  });
});

describe("REMIND_BEFORE", () => {
  it("is an hour when unset, 0 turns it off, and anything else is a duration", () => {
    expect(loadConfig(live).remindBeforeMs).toBe(3_600_000);
    expect(loadConfig({ ...live, REMIND_BEFORE: "0" }).remindBeforeMs).toBe(0);
    expect(loadConfig({ ...live, REMIND_BEFORE: "30m" }).remindBeforeMs).toBe(1_800_000);
    expect(problems({ ...live, REMIND_BEFORE: "soon" })).toEqual([expect.stringMatching(/^REMIND_BEFORE must be a duration/)]);
  });
});

describe("DIGEST_HOUR", () => {
  it("is off when unset, an hour 0-23 when set, and refused otherwise", () => {
    expect(loadConfig(live).digestHour).toBeNull();
    expect(loadConfig({ ...live, DIGEST_HOUR: "0" }).digestHour).toBe(0);
    expect(loadConfig({ ...live, DIGEST_HOUR: " 23 " }).digestHour).toBe(23);
    for (const bad of ["24", "8am", "-1", "7.5"]) {
      expect(problems({ ...live, DIGEST_HOUR: bad })).toEqual([
        expect.stringMatching(/^DIGEST_HOUR must be an hour of the day from 0 to 23, local time/),
      ]);
    }
  });
});

describe("REVIEW_TOPICS", () => {
  it("is role by default (not said), role or off when set, and refused otherwise, naming both", () => {
    expect(loadConfig(live).reviewTopics).toEqual({ mode: "role", explicit: false });
    expect(loadConfig({ ...live, REVIEW_TOPICS: "role" }).reviewTopics).toEqual({ mode: "role", explicit: true });
    expect(loadConfig({ ...live, REVIEW_TOPICS: "off" }).reviewTopics).toEqual({ mode: "off", explicit: true });
    expect(problems({ ...live, REVIEW_TOPICS: "on" })).toEqual([expect.stringMatching(/^REVIEW_TOPICS must be "role" .* or "off"/)]);
  });
});

describe("CALLBACK_URL / CALLBACK_SECRET", () => {
  it("are off when unset, and need an http(s) URL with a secret of 16+ characters", () => {
    expect(loadConfig(live).callback).toBeNull();
    const secret = "s".repeat(16);
    expect(loadConfig({ ...live, CALLBACK_URL: "http://127.0.0.1:9000/e", CALLBACK_SECRET: secret }).callback).toEqual({
      url: "http://127.0.0.1:9000/e",
      secret,
    });
    expect(problems({ ...live, CALLBACK_URL: "ftp://x", CALLBACK_SECRET: secret })).toEqual([
      expect.stringMatching(/^CALLBACK_URL must be an http\(s\) URL/),
    ]);
    expect(problems({ ...live, CALLBACK_URL: "https://x.example/e" })).toEqual([
      expect.stringMatching(/^CALLBACK_SECRET must be set, 16 characters or more/),
    ]);
    expect(problems({ ...live, CALLBACK_URL: "https://x.example/e", CALLBACK_SECRET: "short" })).toHaveLength(1);
    expect(problems({ ...live, CALLBACK_SECRET: secret })).toEqual([
      expect.stringMatching(/^CALLBACK_SECRET is set but CALLBACK_URL is not/),
    ]);
  });
});

describe("AUDIENCE_CONFIRM_OVER and REVIEW_TIMEZONE", () => {
  it("default to 200 and the system's zone; take a count and an IANA zone; refuse anything else by name", () => {
    expect(loadConfig(live)).toMatchObject({ audienceConfirmOver: 200, reviewTimeZone: null });
    expect(loadConfig({ ...live, AUDIENCE_CONFIRM_OVER: "0", REVIEW_TIMEZONE: "Europe/Berlin" })).toMatchObject({
      audienceConfirmOver: 0,
      reviewTimeZone: "Europe/Berlin",
    });
    const found = problems({ ...live, AUDIENCE_CONFIRM_OVER: "many", REVIEW_TIMEZONE: "Mars/Olympus" });
    expect(found).toEqual([
      expect.stringMatching(/^AUDIENCE_CONFIRM_OVER must be a whole number/),
      expect.stringMatching(/^REVIEW_TIMEZONE must be an IANA time zone/),
    ]);
  });
});

describe("one message for every problem", () => {
  it("names each wrong variable once, says how to fix it, and never shows a token pasted into the wrong place", () => {
    const pasted = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    const env = {
      TELEGRAM_BOT_TOKEN: "not-a-token",
      REVIEW_CHAT_ID: pasted,
      REVIEWER_USER_IDS: "@owner, 12, bob",
      DRAFT_TTL: "soon",
      DRAFT_API_PORT: "http",
      TELEGRAM_TIMEOUT_SECONDS: "0",
      PII_REDACTION: "maybe",
      DIGEST_HOUR: "25",
    };
    const found = problems(env);
    const named = [
      "TELEGRAM_BOT_TOKEN",
      "REVIEW_CHAT_ID",
      "REVIEWER_USER_IDS",
      "REVIEWER_USER_IDS",
      "DRAFT_TTL",
      "DRAFT_API_PORT",
      "PII_REDACTION",
      "TELEGRAM_TIMEOUT_SECONDS",
      "DIGEST_HOUR",
    ];
    expect(found.map((p) => p.split(" ")[0])).toEqual(named);
    expect(found.find((p) => p.startsWith("TELEGRAM_TIMEOUT_SECONDS"))).toBe(
      'TELEGRAM_TIMEOUT_SECONDS must be a whole number from 1 to 600 (got "0"); leave it unset for 60.',
    );
    let message = "";
    try {
      loadConfig(env);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^The configuration has 9 problems:\n {2}- TELEGRAM_BOT_TOKEN/);
    expect(message).not.toContain(pasted.split(":")[1]);
  });

  it("coerces numbers and trims what it reads", () => {
    const c = loadConfig({
      ...live,
      DRAFT_API_PORT: " 9000 ",
      TELEGRAM_RATE_SCALE: "50",
      REVIEW_THREAD_ID: "7",
      DRAFT_STORE_COMPACT_AFTER_LINES: "500",
    });
    expect([c.api.port, c.telegram.rateScale, c.reviewThreadId, c.storeCompactAfterLines]).toEqual([9000, 50, 7, 500]);
  });
});
