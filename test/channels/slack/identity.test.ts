import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SLACK_PER_CONVERSATION_MS, SLACK_SCOPES } from "../../../src/channels/slack/index.js";
import type { SlackDouble } from "../../doubles/slack/index.js";
import { BOT_TOKEN, C, channelFor, closedPort, startWorkspace, to, USER_TOKEN } from "./fixture.js";

let slack: SlackDouble;
beforeEach(async () => {
  slack = await startWorkspace();
});
afterEach(async () => {
  await slack.close();
});

describe("Slack whoAmI (auth.test)", () => {
  it("names the user and workspace, as you with a user token and as the app with a bot token", async () => {
    expect(await channelFor(slack).whoAmI()).toEqual({ ok: true, speaksAs: "phill in Acme (as you)" });
    expect(await channelFor(slack, { token: BOT_TOKEN }).whoAmI()).toEqual({ ok: true, speaksAs: "draftbot in Acme (as the app)" });
  });

  it.each(["invalid_auth", "token_revoked", "account_inactive", "not_authed"])(
    "%s: credentials refused, in words, no token",
    async (code) => {
      slack.failNext("auth.test", code);
      const id = await channelFor(slack).whoAmI();
      expect(id).toEqual({ ok: false, credentialsRefused: true, reason: expect.stringContaining(code) });
      expect(JSON.stringify(id)).not.toContain(USER_TOKEN);
    },
  );

  it("a token the workspace does not know is refused (invalid_auth from the double's own check)", async () => {
    const id = await channelFor(slack, { token: "xoxb-0000000000-0000000000-notknownnotknown" }).whoAmI();
    expect(id).toMatchObject({ ok: false, credentialsRefused: true });
  });

  it("a token whose scopes Slack lists without chat:write is refused: nothing could ever be sent", async () => {
    slack.addToken(
      { userId: "U0READER01", userName: "reader", scopes: ["channels:read", "users:read"] },
      "xoxp-5555555555-reader-only-token",
    );
    const id = await channelFor(slack, { token: "xoxp-5555555555-reader-only-token" }).whoAmI();
    expect(id).toEqual({ ok: false, credentialsRefused: true, reason: expect.stringContaining("chat:write") });
    slack.addToken({ userId: "U0WRITER01", userName: "writer", scopes: [...SLACK_SCOPES] }, "xoxp-6666666666-full-scopes-token");
    expect(await channelFor(slack, { token: "xoxp-6666666666-full-scopes-token" }).whoAmI()).toEqual({
      ok: true,
      speaksAs: "writer in Acme (as you)",
    });
  });

  it("Slack out of reach or failing is not a refusal of the credentials", async () => {
    slack.failNext("auth.test", "internal_error");
    expect(await channelFor(slack).whoAmI()).toMatchObject({ ok: false, credentialsRefused: false });
    slack.httpErrorNext("auth.test", 503);
    expect(await channelFor(slack).whoAmI()).toMatchObject({
      ok: false,
      credentialsRefused: false,
      reason: expect.stringContaining("503"),
    });
    const url = `http://127.0.0.1:${await closedPort()}/api/`;
    expect(await channelFor(slack, { url }).whoAmI()).toMatchObject({
      ok: false,
      credentialsRefused: false,
      reason: expect.stringContaining("could not be reached"),
    });
  });
});

describe("Slack channel shape", () => {
  it("has its name, limit, rate key per conversation, and the per-conversation interval", () => {
    const channel = channelFor(slack);
    expect(channel.name).toBe("slack");
    expect(channel.maxLength).toBe(40_000);
    expect(channel.rateKey(to(C.design))).toBe("slack:C0DESIGN01");
    expect(channel.rateKey(to(C.design, "1700000000.000100"))).toBe("slack:C0DESIGN01");
    expect(SLACK_PER_CONVERSATION_MS).toBe(1000);
  });
});
