import { createServer } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChannelSendOutcome } from "../../../src/channels/channel.js";
import { LINEAR_MAX_COMMENT_LENGTH } from "../../../src/channels/linear/index.js";
import { linearAnswers } from "../../doubles/linear/index.js";
import { type LinearFixture, linearFixture } from "./fixture.js";

/**
 * The Linear channel's send and lost-send lookup, through the real
 * @linear/sdk against the Linear double over HTTP on 127.0.0.1.
 */
let f: LinearFixture;

beforeEach(async () => {
  f = await linearFixture();
});
afterEach(async () => {
  expect(f.linear.state.invalid).toEqual([]);
  await f.linear.close();
});

const TEXT = "Thanks @anna — fixed in **#412**.\n\n- Safari 17: ok\n- `code`  \nÄ ✓ 👍\n";

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

const commentCreates = () => f.linear.state.calls.get("commentCreate") ?? 0;

describe("sending a Linear comment", () => {
  it("creates the comment with the id chosen before the call, the text byte for byte, as the key's owner", async () => {
    const ref = f.ref();
    const outcome = await f.channel().send(f.dest(), TEXT, ref);

    const comment = f.w.comments.get(ref.reference);
    expect(outcome).toEqual({ kind: "ok", sentRef: { comment_id: ref.reference, url: f.w.commentUrl(comment!) } });
    expect(comment?.body).toBe(TEXT);
    expect(comment?.userId).toBe(f.owner.id);
    expect(comment?.parentId).toBeNull();
    const create = f.linear.state.requests.find((r) => r.rootFields.includes("commentCreate"));
    expect(create?.variables).toEqual({ input: { id: ref.reference, issueId: "ENG-1", body: TEXT } });
    expect(create?.authorization).toBe(f.linear.apiKey);
    expect(commentCreates()).toBe(1);
  });

  it("answers a comment in its thread when parent_comment_id is set", async () => {
    const parent = f.w.addComment(f.issue, f.anna, "Can someone look?");
    const ref = f.ref();
    const outcome = await f.channel().send(f.dest({ parent_comment_id: parent.id, issue: f.issue.id }), "Looking.", ref);
    expect(outcome.kind).toBe("ok");
    expect(f.w.comments.get(ref.reference)).toMatchObject({ parentId: parent.id, issueId: f.issue.id, body: "Looking." });
  });

  it("refuses for good when the issue or the answered comment is not there", async () => {
    const noIssue = await f.channel().send(f.dest({ issue: "ENG-99" }), "x", f.ref());
    expect(noIssue).toEqual({ kind: "refused", reason: expect.stringMatching(/^issue ENG-99 not found in Linear/) });
    const elsewhere = f.w.addComment(f.w.addIssue(f.eng, { title: "Other" }), f.anna, "elsewhere");
    const noParent = await f.channel().send(f.dest({ parent_comment_id: elsewhere.id }), "x", f.ref());
    expect(noParent).toEqual({ kind: "refused", reason: expect.stringMatching(/comment it answers \(parent_comment_id\)/) });
    expect(f.w.comments.size).toBe(1);
  });

  it("refuses for good when Linear forbids it, or refuses the key (never naming the key)", async () => {
    f.linear.failNext("commentCreate", linearAnswers.forbidden());
    expect(await f.channel().send(f.dest(), "x", f.ref())).toMatchObject({ kind: "refused", reason: expect.stringMatching(/forbids/) });
    const wrongKey = "lin_api_wrongwrongwrongwrongwrongwrongwrong";
    const refused = await f.channel({ apiKey: wrongKey }).send(f.dest(), "x", f.ref());
    expect(refused).toMatchObject({ kind: "refused", reason: expect.stringMatching(/LINEAR_API_KEY/) });
    expect(JSON.stringify(refused)).not.toContain(wrongKey);
  });

  it("waits as long as Linear's rate limit says: Retry-After, else the budget's reset (ms epoch), at least 1 s", async () => {
    f.linear.failNext("commentCreate", linearAnswers.ratelimited(f.clock.ms + 41_200));
    expect(await f.channel().send(f.dest(), "x", f.ref())).toMatchObject({ kind: "retry_after", seconds: 42 });
    f.linear.failNext("commentCreate", linearAnswers.ratelimited(f.clock.ms + 41_200, { retryAfterSeconds: 7 }));
    expect(await f.channel().send(f.dest(), "x", f.ref())).toMatchObject({ kind: "retry_after", seconds: 7 });
    f.linear.failNext("commentCreate", linearAnswers.ratelimited(f.clock.ms - 5_000));
    expect(await f.channel().send(f.dest(), "x", f.ref())).toMatchObject({ kind: "retry_after", seconds: 1 });
    f.linear.failNext("commentCreate", { status: 429, body: "Too Many Requests" });
    expect(await f.channel().send(f.dest(), "x", f.ref())).toMatchObject({ kind: "retry_after", seconds: 60 });
    expect(f.w.comments.size).toBe(0);
  });

  it("says not sent when Linear answered that it did nothing, or could not be reached at all", async () => {
    f.linear.failNext("commentCreate", linearAnswers.lockTimeout());
    expect(await f.channel().send(f.dest(), "x", f.ref())).toEqual({
      kind: "not_sent",
      reason: "Linear was busy (lock timeout): not sent",
    });
    expect(commentCreates()).toBe(1);
    const port = await closedPort();
    const refused = await f.channel({ apiUrl: `http://127.0.0.1:${port}/graphql` }).send(f.dest(), "x", f.ref());
    expect(refused).toEqual({ kind: "not_sent", reason: "Linear could not be reached (ECONNREFUSED): not sent" });
  });

  it("says unknown on a 5xx, and the SDK made exactly one request for it (no library retry)", async () => {
    for (const answer of [linearAnswers.internal(), linearAnswers.badGateway()]) {
      const before = commentCreates();
      f.linear.failNext("commentCreate", answer);
      const outcome = await f.channel().send(f.dest(), "x", f.ref());
      expect(outcome).toMatchObject({ kind: "unknown", reason: expect.stringMatching(/may or may not exist/) });
      expect(commentCreates() - before).toBe(1);
    }
  });

  it("reads Linear's error type whatever HTTP status carries it, and an untyped 4xx as refused", async () => {
    f.linear.failNext("commentCreate", linearAnswers.notFound("Issue", 400));
    expect(await f.channel().send(f.dest(), "x", f.ref())).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/^issue ENG-1 not found/),
    });
    f.linear.failNext("commentCreate", { status: 422, body: { errors: [{ message: "Unprocessable" }] } });
    expect(await f.channel().send(f.dest(), "x", f.ref())).toEqual({
      kind: "refused",
      reason: "Linear refused it (HTTP 422): Unprocessable",
    });
  });

  it("refuses a text over the limit and a reference that is not a UUID without calling Linear", async () => {
    const long = await f.channel().send(f.dest(), "x".repeat(LINEAR_MAX_COMMENT_LENGTH + 1), f.ref());
    expect(long).toMatchObject({ kind: "refused", reason: expect.stringMatching(/100,000 characters/) });
    expect(await f.channel().send(f.dest(), "x", f.ref("draft-1"))).toMatchObject({ kind: "refused" });
    expect(commentCreates()).toBe(0);
  });

  it("still says ok when only the read of the comment's address fails (it was sent)", async () => {
    f.linear.failNext("comment", linearAnswers.internal());
    const ref = f.ref();
    expect(await f.channel().send(f.dest(), "x", ref)).toEqual({ kind: "ok", sentRef: { comment_id: ref.reference, url: null } });
  });

  it("says ok for a send whose id is already taken by an earlier call of the same send", async () => {
    const ref = f.ref();
    await f.channel().send(f.dest(), "once", ref);
    const again = await f.channel().send(f.dest(), "once", ref);
    expect(again).toMatchObject({ kind: "ok", sentRef: { comment_id: ref.reference } });
    expect(f.w.comments.size).toBe(1);
  });
});

describe("a send whose answer was lost", () => {
  it("is unknown, made one request, and findSent then finds the comment", async () => {
    f.linear.loseNext("commentCreate");
    const ref = f.ref();
    const outcome: ChannelSendOutcome = await f.channel().send(f.dest(), TEXT, ref);
    expect(outcome).toMatchObject({ kind: "unknown", reason: expect.stringMatching(/connection to Linear broke/) });
    expect(commentCreates()).toBe(1);
    const found = await f.channel().findSent(f.dest(), ref);
    expect(found).toEqual({ kind: "found", sentRef: { comment_id: ref.reference, url: f.w.commentUrl(f.w.comments.get(ref.reference)!) } });
  });

  it("is unknown when Linear does not answer in time; findSent says absent until Linear does it, then found", async () => {
    const hold = f.linear.holdNext("commentCreate");
    const ref = f.ref();
    const outcome = await f.channel({ requestTimeoutMs: 1_500 }).send(f.dest(), "slow", ref);
    expect(outcome).toMatchObject({ kind: "unknown", reason: "Linear did not answer within 1.5 s: the comment may or may not exist" });
    await hold.arrived;
    expect(await f.channel().findSent(f.dest(), ref)).toEqual({ kind: "absent" });
    hold.release();
    await expect.poll(() => f.w.comments.has(ref.reference)).toBe(true);
    expect(await f.channel().findSent(f.dest(), ref)).toMatchObject({ kind: "found" });
    expect(commentCreates()).toBe(1);
  });

  it("is looked for as unknown when Linear cannot say", async () => {
    f.linear.failNext("comment", linearAnswers.internal());
    const found = await f.channel().findSent(f.dest(), f.ref());
    expect(found).toMatchObject({ kind: "unknown", reason: expect.stringMatching(/could not ask Linear/) });
  });
});

describe("who the daemon speaks as on Linear", () => {
  it("is the key's owner in the workspace", async () => {
    expect(await f.channel().whoAmI()).toEqual({ ok: true, speaksAs: "Phill Owner (phill@example.com) in Acme" });
    expect(f.linear.state.requests).toHaveLength(1);
  });

  it("says the credentials were refused for a key Linear refuses, and not for an unreachable Linear", async () => {
    const refused = await f.channel({ apiKey: "lin_api_revoked" }).whoAmI();
    expect(refused).toMatchObject({ ok: false, credentialsRefused: true });
    expect(JSON.stringify(refused)).not.toContain("lin_api_revoked");
    const port = await closedPort();
    expect(await f.channel({ apiUrl: `http://127.0.0.1:${port}/graphql` }).whoAmI()).toMatchObject({
      ok: false,
      credentialsRefused: false,
    });
  });

  it("counts every destination against one rate limit: the key's", () => {
    expect(f.channel().rateKey(f.dest())).toBe("linear");
    expect(f.channel().rateKey(f.dest({ issue: "OPS-4" }))).toBe("linear");
  });
});
