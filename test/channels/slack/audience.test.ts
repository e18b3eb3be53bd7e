import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUDIENCE_UNREADABLE } from "../../../src/channels/slack/index.js";
import type { SlackDouble } from "../../doubles/slack/index.js";
import { BOB, BOT_TOKEN, C, channelFor, closedPort, OWNER, startWorkspace, to } from "./fixture.js";

let slack: SlackDouble;
const NOW = Date.parse("2030-01-02T03:04:05.000Z");
beforeEach(async () => {
  slack = await startWorkspace();
});
afterEach(async () => {
  await slack.close();
});

const read = (channel_id: string, text = "hello", thread: string | null = null, token?: string) =>
  channelFor(slack, { now: () => NOW, ...(token === undefined ? {} : { token }) }).readAudience(to(channel_id, thread), text);

describe("Slack audience: where, as whom, to whom", () => {
  it("a public channel: name, kind, member count, who it appears from; bound and dated by the injected clock", async () => {
    const a = await read(C.design);
    expect(a).toMatchObject({
      channel: "slack",
      readerCount: 14,
      confirmReasons: [],
      problem: null,
      checkedAt: "2030-01-02T03:04:05.000Z",
    });
    expect(a.lines).toEqual(["Slack #design: public channel, 14 members", "as phill in Acme (as you)"]);
    expect(a.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a private channel, as the app with a bot token", async () => {
    const a = await read(C.secret, "hi", null, BOT_TOKEN);
    expect(a.lines).toEqual(["Slack #secret-plans: private channel, 3 members", "as draftbot in Acme (as the app)"]);
    expect(a.readerCount).toBe(3);
  });

  it("a DM names the other person (users.info) and counts 2", async () => {
    const a = await read(C.dm);
    expect(a.lines).toEqual(["Slack DM with Anna Smith", "as phill in Acme (as you)"]);
    expect(a.readerCount).toBe(2);
  });

  it("a group DM names its people", async () => {
    const a = await read(C.mpdm);
    expect(a.lines[0]).toBe("Slack group DM with phill, anna, bob: 3 members");
  });

  it("shared with other organizations (Slack Connect), or with other workspaces", async () => {
    expect((await read(C.connect)).lines).toContain("shared with other organizations (Slack Connect)");
    expect((await read(C.gridShared)).lines).toContain("shared with other workspaces");
    expect((await read(C.design)).lines.join("\n")).not.toContain("shared");
  });

  it("a thread quotes its first message on one line, cut to 200 characters", async () => {
    const parent = slack.seedMessage(C.design, { text: `Launch\nplan?  ${"x".repeat(300)}`, user: OWNER });
    const a = await read(C.design, "hi", parent);
    const quote = a.lines.find((l) => l.startsWith("in the thread of:"));
    expect(quote).toMatch(/^in the thread of: "Launch plan\? x+…"$/);
    expect(quote!.length).toBeLessThan(230);
  });

  it.each([
    ["<!channel> ship it", ["@channel"]],
    ["<!here|here> ship it", ["@here"]],
    ["<!everyone>", ["@everyone"]],
    ["@channel written plainly", ["@channel"]],
    ["hey @Here and @everyone", ["@here", "@everyone"]],
    ["mail me at x@channel.org? no: (@channel)", ["@channel"]],
    ["@channels and @hereby are words", []],
  ])("names mentions that notify everyone: %s", async (text, kinds) => {
    const a = await read(C.general, text);
    const lines = a.lines.filter((l) => l.includes("notifies everyone"));
    expect(lines).toEqual(kinds.map((k) => `${k} notifies everyone in #general (300)`));
  });

  it("names the people and user groups the text mentions (users.info), an unknown id as it is", async () => {
    const a = await read(
      C.design,
      "<@U0ANNA0001> and <@U0BOB00001|bob>, <@U0GHOST001>, <!subteam^S0DESIGN1|@design-team> again <@U0ANNA0001>",
    );
    expect(a.lines).toContain("notifies Anna Smith, Bobby, U0GHOST001 (mentioned)");
    expect(a.lines).toContain("notifies the user group @design-team");
    const other = await read(C.design, "<@U0ANNA0001>");
    expect(other.fingerprint).not.toBe(a.fingerprint);
    expect(other.fingerprint).not.toBe((await read(C.design, "<@U0BOB00001>")).fingerprint);
  });

  it("over AUDIENCE_CONFIRM_OVER asks for the extra tap; null never does", async () => {
    expect((await read(C.general)).confirmReasons).toEqual(["300 members in #general, over 200"]);
    const never = await channelFor(slack, { confirmOver: null }).readAudience(to(C.general), "hi");
    expect(never.confirmReasons).toEqual([]);
  });

  it("counts members with conversations.members when conversations.info gives no count", async () => {
    const a = await read(C.uncounted);
    expect(a.readerCount).toBe(4);
    expect(slack.callCount("conversations.members")).toBe(1);
  });
});

describe("Slack audience: what cannot be reached, and what cannot be read", () => {
  it.each([
    ["C0NOWHERE1", null, undefined, /no conversation C0NOWHERE1/],
    [C.noBot, null, BOT_TOKEN, /not a member of #random/],
    [C.archived, null, undefined, /#old-launch is archived/],
    [C.design, "1700000000.000001", undefined, /thread 1700000000.000001 was not found/],
  ])("%s is a problem in words", async (id, thread, token, words) => {
    const a = await read(id, "hi", thread, token);
    expect(a.problem).toMatch(words);
    expect(a.readerCount).toBeNull();
    expect(a.lines[0]).toMatch(words);
  });

  it("a private channel the token cannot see is channel_not_found, a problem", async () => {
    slack.state.conversations.get(C.secret)!.members = [OWNER];
    expect((await read(C.secret, "hi", null, BOT_TOKEN)).problem).toMatch(/no conversation/);
  });

  it("a refused token is a problem that says so", async () => {
    slack.state.revokedTokens.add("xoxp-1111111111-2222222222-3333333333-abcdefabcdefabcdef");
    const a = await read(C.design);
    expect(a.problem).toMatch(/refused the token \(token_revoked\).*SLACK_TOKEN/);
    expect(JSON.stringify(a)).not.toContain("xoxp-");
  });

  it.each([
    ["conversations.info", "internal_error"],
    ["conversations.info", "ratelimited"],
    ["auth.test", "service_unavailable"],
  ])("%s answering %s leaves the audience unread: no count, the confirm reason, no problem", async (method, code) => {
    slack.failNext(method, code);
    const a = await read(C.design, "<!here>");
    expect(a).toMatchObject({ readerCount: null, problem: null, confirmReasons: [AUDIENCE_UNREADABLE] });
    expect(a.lines[0]).toContain(AUDIENCE_UNREADABLE);
    expect(a.lines).toContain(`@here notifies everyone in ${C.design}`);
  });

  it("a missing read scope leaves it unread, naming the scope", async () => {
    slack.failNext("conversations.info", "missing_scope", { extra: { needed: "groups:read" } });
    expect((await read(C.secret)).lines[0]).toContain("the token needs groups:read");
  });

  it("a lost answer or a closed server leaves it unread too, never throws", async () => {
    slack.dropAfterHandling("conversations.info");
    expect((await read(C.design)).confirmReasons).toEqual([AUDIENCE_UNREADABLE]);
    const url = `http://127.0.0.1:${await closedPort()}/api/`;
    const a = await channelFor(slack, { url }).readAudience(to(C.design), "hi");
    expect(a).toMatchObject({ readerCount: null, problem: null, confirmReasons: [AUDIENCE_UNREADABLE] });
    expect(a.lines[0]).toContain("could not be reached");
  });
});

describe("Slack audience fingerprint", () => {
  it("is the same for the same facts and changes with each thing an approval binds to", async () => {
    const base = (await read(C.design, "hi")).fingerprint;
    expect((await read(C.design, "hi")).fingerprint).toBe(base);
    expect((await read(C.design, "hi <!channel>")).fingerprint).not.toBe(base);
    expect((await read(C.general, "hi")).fingerprint).not.toBe(base);
    expect((await read(C.design, "hi", null, BOT_TOKEN)).fingerprint).not.toBe(base);
    const parent = slack.seedMessage(C.design, { text: "parent", user: OWNER });
    expect((await read(C.design, "hi", parent)).fingerprint).not.toBe(base);
    const design = slack.state.conversations.get(C.design)!;
    // A new member is bound by the growth rule at the send (readerGrowth), not by the fingerprint.
    design.members.push(BOB);
    const grown = (await read(C.design, "hi")).fingerprint;
    expect(grown).toBe(base);
    design.kind = "private";
    const closed = (await read(C.design, "hi")).fingerprint;
    expect(closed).not.toBe(grown);
    design.extShared = true;
    expect((await read(C.design, "hi")).fingerprint).not.toBe(closed);
    design.name = "design-2";
    expect((await read(C.design, "hi")).fingerprint).not.toBe(closed);
  });

  it("an unread audience never shares a fingerprint with a read one", async () => {
    const readOne = (await read(C.design)).fingerprint;
    slack.failNext("conversations.info", "internal_error");
    expect((await read(C.design)).fingerprint).not.toBe(readOne);
  });
});
