import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUDIENCE_UNREADABLE } from "../../../src/channels/linear/index.js";
import { findMentions } from "../../../src/channels/linear/mentions.js";
import { linearAnswers } from "../../doubles/linear/index.js";
import { type LinearFixture, linearFixture } from "./fixture.js";

/**
 * What the review post shows of a Linear comment's audience, read through
 * the real @linear/sdk from the Linear double: every query validated against
 * Linear's schema (state.invalid stays empty), one request per read.
 */
let f: LinearFixture;

beforeEach(async () => {
  f = await linearFixture();
});
afterEach(async () => {
  expect(f.linear.state.invalid).toEqual([]);
  await f.linear.close();
});

const requests = () => f.linear.state.requests.length;

describe("the audience of a Linear comment", () => {
  it("names the issue, its private team and member count, who it notifies (not the daemon's own user), and as whom, in one request", async () => {
    const audience = await f.channel().readAudience(f.dest(), "Fixed.");
    expect(audience).toEqual({
      channel: "linear",
      readerCount: 3,
      lines: ["Linear ENG-1 · Login fails on Safari", "team Engineering (private) · 3 members", "notifies: Anna Berg", "as Phill Owner"],
      confirmReasons: [],
      problem: null,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      checkedAt: new Date(f.clock.ms).toISOString(),
    });
    expect(requests()).toBe(1);
  });

  it("says a public team is visible to the workspace, and a restricted one to a private team's members", async () => {
    f.eng.visibility = "public";
    expect((await f.channel().readAudience(f.dest({ issue: f.issue.id }), "x")).lines[1]).toBe(
      "team Engineering (visible to the workspace) · 3 members",
    );
    f.eng.visibility = "restricted";
    expect((await f.channel().readAudience(f.dest(), "x")).lines[1]).toBe(
      "team Engineering (visible to a private team's members) · 3 members",
    );
  });

  it("adds the people the text @-mentions or links to, and lists a mention no one answers to as written", async () => {
    const text = "@ben and https://linear.app/acme/profiles/anna, cc @ghost. Not @phill's mail phill@example.com, not `@carl`.";
    const audience = await f.channel().readAudience(f.dest(), text);
    expect(audience.lines[2]).toBe("notifies: Anna Berg, Ben Cho, @ghost (not in team ENG)");
  });

  it("says where the issue is synced: the comment leaves Linear too", async () => {
    f.issue.syncedWith.push(
      { service: "slack", id: "1717.42", channelName: "eng-alerts" },
      { service: "github", id: "I_kw1", owner: "acme", repo: "web", number: 12 },
      { service: "jira", id: "10001", issueKey: "PROJ-7" },
    );
    const audience = await f.channel().readAudience(f.dest(), "x");
    expect(audience.lines).toContain("synced to Slack #eng-alerts, GitHub acme/web#12, Jira PROJ-7: the comment leaves Linear too");
  });

  it("quotes the comment it answers on one line, 200 characters at most, in the same one request", async () => {
    const parent = f.w.addComment(f.issue, f.anna, `Can someone look?\n\n${"long ".repeat(60)}`);
    const audience = await f.channel().readAudience(f.dest({ parent_comment_id: parent.id }), "x");
    const quote = audience.lines.find((l) => l.startsWith("answers Anna Berg: “"));
    expect(quote).toMatch(/^answers Anna Berg: “Can someone look\? long long .*…”$/);
    expect(quote?.length).toBe("answers Anna Berg: “".length + 200 + 1);
    expect(requests()).toBe(1);
  });

  it("asks for the extra tap over AUDIENCE_CONFIRM_OVER members, and never with null", async () => {
    expect((await f.channel({ confirmOver: 2 }).readAudience(f.dest(), "x")).confirmReasons).toEqual([
      "the team has 3 members, more than AUDIENCE_CONFIRM_OVER (2)",
    ]);
    expect((await f.channel({ confirmOver: 3 }).readAudience(f.dest(), "x")).confirmReasons).toEqual([]);
  });

  it("counts every member of a team larger than one page (250), one more request per page", async () => {
    for (let i = 0; i < 300; i += 1) f.eng.memberIds.push(f.w.addUser({ name: `Member ${i}`, displayName: `m${i}` }).id);
    const audience = await f.channel().readAudience(f.dest(), "x");
    expect(audience.readerCount).toBe(303);
    expect(requests()).toBe(2);
  });

  it("names ten of the people notified, counts the rest, and says when the issue has more subscribers than it read", async () => {
    for (let i = 0; i < 260; i += 1) f.issue.subscriberIds.push(f.w.addUser({ name: `Sub ${i}`, displayName: `s${i}` }).id);
    const line = (await f.channel().readAudience(f.dest(), "x")).lines[2];
    expect(line).toBe(
      "notifies: Anna Berg, Sub 0, Sub 1, Sub 2, Sub 3, Sub 4, Sub 5, Sub 6, Sub 7, Sub 8 +239 more (over 250 subscribers: not all named)",
    );
  });
});

describe("a Linear destination that cannot be reached or read", () => {
  it("is a problem when the issue is not found, forbidden, or the answered comment is missing or elsewhere", async () => {
    const missing = await f.channel().readAudience(f.dest({ issue: "ENG-404" }), "x");
    expect(missing).toMatchObject({
      readerCount: null,
      confirmReasons: [],
      problem: expect.stringMatching(/^issue ENG-404 not found in Linear/),
    });
    expect(missing.lines).toEqual(["Linear ENG-404", missing.problem]);

    f.linear.failNext("issue", linearAnswers.forbidden());
    expect((await f.channel().readAudience(f.dest(), "x")).problem).toMatch(/forbids/);

    const absentParent = await f.channel().readAudience(f.dest({ parent_comment_id: "00000000-0000-4000-8000-000000000000" }), "x");
    expect(absentParent.problem).toMatch(/comment it answers \(parent_comment_id\)/);

    const elsewhere = f.w.addComment(f.w.addIssue(f.eng, { title: "Other" }), f.anna, "elsewhere");
    expect((await f.channel().readAudience(f.dest({ parent_comment_id: elsewhere.id }), "x")).problem).toBe(
      "the comment it answers is on another issue, not ENG-1: check parent_comment_id",
    );
  });

  it("is unread, with the extra tap asked, when Linear fails, limits us or refuses the key", async () => {
    f.linear.failNext("issue", linearAnswers.internal());
    const failed = await f.channel().readAudience(f.dest(), "x");
    expect(failed).toMatchObject({ readerCount: null, problem: null, confirmReasons: [AUDIENCE_UNREADABLE] });
    expect(failed.lines[1]).toMatch(/^could not read who will see it: Linear failed \(HTTP 500\)/);

    f.linear.failNext("issue", linearAnswers.ratelimited(f.clock.ms + 5_000));
    expect((await f.channel().readAudience(f.dest(), "x")).confirmReasons).toEqual([AUDIENCE_UNREADABLE]);
    const refused = await f.channel({ apiKey: "lin_api_revoked" }).readAudience(f.dest(), "x");
    expect(refused).toMatchObject({ problem: null, confirmReasons: [AUDIENCE_UNREADABLE] });
    expect(JSON.stringify(refused)).not.toContain("lin_api_revoked");
  });
});

describe("the audience's fingerprint", () => {
  const print = async (text = "x") => (await f.channel().readAudience(f.dest(), text)).fingerprint;

  it("stays when nothing a reviewer cares about changed (the title, the clock, a new team member: the send's growth rule binds the count)", async () => {
    const before = await print();
    f.issue.title = "Login fails on Safari 17";
    f.clock.ms += 60_000;
    f.eng.memberIds.push(f.w.addUser({ name: "Dora New" }).id);
    expect(await print()).toBe(before);
  });

  it("changes with an unresolved mention, a new subscriber, the team's visibility, a sync, or another key's owner", async () => {
    const base = await print();
    const changes: (() => void)[] = [
      () => f.issue.subscriberIds.push(f.ben.id),
      () => (f.eng.visibility = "public"),
      () => f.issue.syncedWith.push({ service: "slack", id: "1.2", channelName: "eng" }),
      () => (f.w.viewerId = f.anna.id),
    ];
    const seen = new Set([base, await print("x @ghost")]);
    for (const change of changes) {
      change();
      seen.add(await print());
    }
    expect(seen.size).toBe(changes.length + 2);
  });
});

describe("mentions in a comment's text", () => {
  it("are @handles and profile links, not e-mail addresses, code, or a handle's trailing punctuation", () => {
    const text = "Hi @anna. See https://linear.app/acme/profiles/ben.\n```\n@carl\n```\nmail dora@example.org, `@eve`, @Anna again";
    expect(findMentions(text)).toEqual([
      { handle: "ben", written: "https://linear.app/acme/profiles/ben." },
      { handle: "anna", written: "@anna" },
    ]);
  });
});
