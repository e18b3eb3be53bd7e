import { expect, it } from "vitest";
import { AUDIENCES } from "./commands.js";
import { unansweredReplies } from "./timeline.js";
import { World } from "./world.js";

/** The reviewer's replies the daemon never answered (by a message or an edit of the post about them): the explorer's check. */
function unanswered(world: World): string[] {
  const messages = new Map(world.telegram.messages.map((m) => [m.id, m]));
  return unansweredReplies(world.telegram.replies, world.telegram.answered, messages).map((r) => r.text);
}

// Found by the explorer (seed 9110 of `EXPLORE_SEED=9100 EXPLORE_BUDGET=60000 npm run explore`): the owner put 👍 on a
// post, changed his mind with a note replied to it inside the undo window (the draft went to revise), then took his 👍
// off the post, where it still sat. That undid the revise: the draft was pending again, his note gone, and his reply
// never answered. A 👍 taken away undoes an approval only; the note stands.

async function thumbsUpNoteThenThumbsOff(): Promise<{
  status: string | undefined;
  note: string | null | undefined;
  post: string;
  unanswered: string[];
}> {
  const world = await World.open(AUDIENCES.small!);
  try {
    await world.run("submit (linear)", () => world.submit("linear"));
    const post = world.recent(0)!;
    const draftId = world.draftOf(post)!;
    await world.run("react 👍", () => world.react(post, "👍"));
    await world.run("reply a note", () => world.write(world.newText(), post, draftId));
    await world.run("take the 👍 off", () => world.react(post, null));
    await world.run("advance 61s", () => world.advance(61_000));
    const record = world.record(draftId);
    return {
      status: record?.status,
      note: record?.revision_note,
      post: post.text.split("\n")[0]!,
      unanswered: unanswered(world),
    };
  } finally {
    await world.close();
  }
}

it("a 👍 taken off a post after a note replaced its approval leaves the revise and its note as they are", async () => {
  expect(await thumbsUpNoteThenThumbsOff()).toEqual({
    status: "revise",
    note: expect.stringMatching(/^Text \d+: /),
    post: expect.stringMatching(/^✍️ Revise: Text \d+: /),
    unanswered: [],
  });
});

// Its mirror (seed 9104): 👎, then 👍 replied (the change of mind approves), then the 👎 taken off: the approval stands.
it("a 👎 taken off a post after a 👍 replied replaced its revise leaves the approval, and the draft is sent", async () => {
  const world = await World.open(AUDIENCES.small!);
  try {
    await world.run("submit", () => world.submit("group"));
    const post = world.recent(0)!;
    const draftId = world.draftOf(post)!;
    await world.run("react 👎", () => world.react(post, "👎"));
    await world.run("reply 👍", () => world.write("👍", post, null));
    await world.run("take the 👎 off", () => world.react(post, null));
    await world.run("advance 61s", () => world.advance(61_000));
    expect(world.record(draftId)?.status).toBe("sent");
    expect(post.text.split("\n")[0]).toMatch(/^✅ Sent/);
    expect(unanswered(world)).toEqual([]);
  } finally {
    await world.close();
  }
});

// Seeds 9104 and 9110 again, once the two above were fixed: 👎, then a note replied (the revise's note), then the 👎 taken off
// before the post showed the revise. The undo withdraws the revise with its note, as it should; but the post, unedited
// since it went out, was left as it was (a reaction taken back answers itself), so his note was never answered.
it("a 👎 taken off after a note was replied to it: the revise and its note are undone, and the post says so", async () => {
  const world = await World.open(AUDIENCES.small!);
  try {
    await world.run("submit", () => world.submit("group"));
    const post = world.recent(0)!;
    const draftId = world.draftOf(post)!;
    await world.run("react 👎", () => world.react(post, "👎"));
    await world.run("reply a note", () => world.write(world.newText(), post, draftId));
    await world.run("take the 👎 off", () => world.react(post, null));
    await world.run("advance 61s", () => world.advance(61_000));
    expect(world.record(draftId)).toMatchObject({ status: "pending", revision_note: null });
    expect(post.text.split("\n")[0]).toBe("↩️ Undone: the draft awaits your decision again.");
    expect(unanswered(world)).toEqual([]);
  } finally {
    await world.close();
  }
});
