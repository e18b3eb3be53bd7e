import { describe, expect, it } from "vitest";
import { describeSlackDestination, slackConfigFromEnv, slackDestinationSchema } from "../../../src/channels/slack/index.js";

const issuesOf = (input: unknown) => {
  const r = slackDestinationSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("Slack destination schema", () => {
  it("takes C, G and D ids, with or without a thread; an absent thread_ts reads as null", () => {
    expect(slackDestinationSchema.parse({ channel: "slack", channel_id: "C0123ABCDE", thread_ts: null })).toEqual({
      channel: "slack",
      channel_id: "C0123ABCDE",
      thread_ts: null,
    });
    expect(slackDestinationSchema.parse({ channel: "slack", channel_id: "G0123ABCDE", thread_ts: "1700000000.123456" }).thread_ts).toBe(
      "1700000000.123456",
    );
    expect(slackDestinationSchema.parse({ channel: "slack", channel_id: "D0123ABCDE" }).thread_ts).toBeNull();
  });

  it("refuses a user id, saying where a DM's id comes from", () => {
    for (const id of ["U0123ABCDE", "W0123ABCDE"]) {
      expect(issuesOf({ channel: "slack", channel_id: id })).toEqual([
        "channel_id: is a user id; a DM's conversation id starts with D (conversations.open gives it)",
      ]);
    }
  });

  it.each(["#design", "design", "c0123abcde", "C0123", "X0123ABCDE", "C0123ABCDE\n", " C0123ABCDE", "C0123ABC-E", ""])(
    "refuses %j as channel_id, naming the field",
    (id) => {
      const issues = issuesOf({ channel: "slack", channel_id: id });
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(/^channel_id: must be a Slack conversation id/);
    },
  );

  it.each(["1700000000", "1700000000.12345", "17000000001.123456", "1700000000.123456 ", 1700000000.123456, ""])(
    "refuses %j as thread_ts, naming the field",
    (ts) => {
      expect(issuesOf({ channel: "slack", channel_id: "C0123ABCDE", thread_ts: ts })[0]).toMatch(/^thread_ts: /);
    },
  );

  it("refuses unknown fields, a missing channel_id, and another channel's name", () => {
    expect(issuesOf({ channel: "slack", channel_id: "C0123ABCDE", as_user: true }).join()).toContain("as_user");
    expect(issuesOf({ channel: "slack" })[0]).toMatch(/^channel_id: /);
    expect(issuesOf({ channel: "email", channel_id: "C0123ABCDE" })[0]).toMatch(/^channel: /);
  });

  it("describes a destination on one line", () => {
    expect(describeSlackDestination({ channel: "slack", channel_id: "C0123ABCDE", thread_ts: null })).toBe("Slack conversation C0123ABCDE");
    expect(describeSlackDestination({ channel: "slack", channel_id: "D0123ABCDE", thread_ts: "1700000000.123456" })).toBe(
      "Slack DM D0123ABCDE, in thread 1700000000.123456",
    );
  });
});

describe("Slack configuration from the environment", () => {
  const TOKEN = "xoxp-1111111111-2222222222-3333333333-abcdef";

  it("is absent when neither variable is set (blank counts as unset)", () => {
    expect(slackConfigFromEnv({})).toEqual({ kind: "absent" });
    expect(slackConfigFromEnv({ SLACK_TOKEN: " ", SLACK_API_URL: "" })).toEqual({ kind: "absent" });
  });

  it("takes a user or bot token, with Slack's API root by default", () => {
    expect(slackConfigFromEnv({ SLACK_TOKEN: TOKEN })).toEqual({
      kind: "ok",
      config: { token: TOKEN, tokenKind: "user", apiUrl: "https://slack.com/api/" },
    });
    const bot = slackConfigFromEnv({ SLACK_TOKEN: "xoxb-1111111111-4444444444-ABCDEF", SLACK_API_URL: "http://127.0.0.1:4567/api" });
    expect(bot).toMatchObject({ kind: "ok", config: { tokenKind: "bot", apiUrl: "http://127.0.0.1:4567/api/" } });
  });

  it("is invalid naming SLACK_TOKEN when it is missing or of another kind, never echoing it", () => {
    const missing = slackConfigFromEnv({ SLACK_API_URL: "https://slack.com/api/" });
    expect(missing).toMatchObject({ kind: "invalid", error: expect.stringMatching(/^SLACK_TOKEN is not set/) });
    for (const wrong of ["xapp-1-A0123-4567-abcdef", "xoxc-1111111111-abcdefabcdef", "Bearer xoxp-1111111111-2222", "xoxp-short"]) {
      const r = slackConfigFromEnv({ SLACK_TOKEN: wrong });
      expect(r).toMatchObject({
        kind: "invalid",
        error: expect.stringMatching(/^SLACK_TOKEN is not a Slack user token \(xoxp-…\) or bot token/),
      });
      expect(JSON.stringify(r)).not.toContain(wrong);
    }
  });

  it("says why a rotating token (xoxe.…) will not do", () => {
    expect(slackConfigFromEnv({ SLACK_TOKEN: "xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAtMTIzNDU2Nzg5MA" })).toMatchObject({
      kind: "invalid",
      error: expect.stringMatching(/^SLACK_TOKEN is a rotating token/),
    });
  });

  it.each([
    "http://slack.example.com/api/",
    "ftp://127.0.0.1/api/",
    "not a url",
    "https://user:pw@slack.com/api/",
    "https://slack.com/api/?x=1",
  ])("is invalid naming SLACK_API_URL for %j", (url) => {
    expect(slackConfigFromEnv({ SLACK_TOKEN: TOKEN, SLACK_API_URL: url })).toMatchObject({
      kind: "invalid",
      error: expect.stringMatching(/^SLACK_API_URL must be an https URL/),
    });
  });
});
