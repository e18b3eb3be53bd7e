import { afterEach, describe, expect, it } from "vitest";
import { AUDIENCES } from "./commands.js";
import type { ChatMessage } from "./fake-telegram.js";
import { World } from "./world.js";

/**
 * The explorer's world with drafts to Linear, email and Slack, step by step:
 * the sequences its random runs found worth keeping. Every step is judged by
 * the explorer's invariants (world.run throws on a violation), and each test
 * says what the desk must have done besides.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

async function open(): Promise<World> {
  world = await World.open(AUDIENCES.small!);
  return world;
}

/** The newest message with a button whose data starts with `prefix`. */
function withButton(w: World, prefix: string): { message: ChatMessage; data: string } {
  const message = w.telegram.messages.findLast((m) => m.buttons.some((b) => b.startsWith(prefix)))!;
  return { message, data: message.buttons.find((b) => b.startsWith(prefix))! };
}

/** 👍 Send on the newest post, then "Yes, send" on the question it asks when it asks one (the review chat's pace lets it come). */
async function approve(w: World): Promise<void> {
  const send = withButton(w, "v1:send:");
  await w.run("👍 Send on the post", () => w.tap(send.message, send.data, "current"));
  await w.run("advance 2 s", () => w.advance(2_000));
  if (w.recent(0)?.buttons.some((b) => b.startsWith("v1:confirm:"))) {
    const q = withButton(w, "v1:confirm:");
    await w.run("Yes, send", () => w.tap(q.message, q.data, "current"));
  }
}

describe("the explorer's channels", () => {
  it("a Slack audience that could not be read at the post and still cannot at the send is not sent: halted, audience could not be checked", async () => {
    const w = await open();
    w.channels.service("slack").answering = false;
    await w.run("submit to slack", () => w.submit("slack"));
    await approve(w);
    await w.run("advance 5 min", () => w.advance(300_000));
    expect(w.channels.calls).toEqual([]);
    expect(w.record(w.drafts[0]!)).toMatchObject({ status: "halted", reason: expect.stringContaining("audience could not be checked") });
  }, 60_000);

  it("an email whose answer was lost ends outcome_unknown and is never sent again, across a restart", async () => {
    const w = await open();
    w.channels.service("email").sendPlans.push("lost_absent");
    await w.run("submit to email", () => w.submit("email"));
    await approve(w);
    await w.run("advance 61 s", () => w.advance(61_000));
    await w.run("restart", () => w.restart());
    await w.run("advance 10 min", () => w.advance(600_000));
    expect(w.channels.calls).toHaveLength(1);
    expect(w.record(w.drafts[0]!)?.status).toBe("outcome_unknown");
  }, 60_000);

  it("a Linear answer lost before the comment arrived is looked up, found absent and sent once more: one comment", async () => {
    const w = await open();
    w.channels.service("linear").sendPlans.push("lost_absent");
    await w.run("submit to linear", () => w.submit("linear"));
    await approve(w);
    await w.run("advance 61 s", () => w.advance(61_000));
    expect(w.channels.calls.map((c) => c.arrived)).toEqual([false, true]);
    expect(w.record(w.drafts[0]!)?.status).toBe("sent");
  }, 60_000);

  it("an audience that changed between the 👍 and the send halts it; a 👍 on the post that shows the new audience sends it", async () => {
    const w = await open();
    await w.run("submit to slack", () => w.submit("slack"));
    await approve(w);
    await w.run("slack audience grown", async () => w.channels.setAudience("slack", "grown"));
    await w.run("advance 61 s", () => w.advance(61_000));
    expect(w.channels.calls).toEqual([]);
    expect(w.record(w.drafts[0]!)?.status).toBe("halted");
    await approve(w);
    await w.run("advance 61 s", () => w.advance(61_000));
    expect(w.channels.calls.map((c) => c.truth.tag)).toEqual(["slack-grown"]);
    expect(w.record(w.drafts[0]!)?.status).toBe("sent");
  }, 60_000);

  it("a channel whose service refused the credentials at the start posts its drafts but sends none; after a start that proves them, a new 👍 sends", async () => {
    const w = await open();
    w.channels.service("linear").credentialsRefused = true;
    await w.run("restart", () => w.restart());
    await w.run("submit to linear", () => w.submit("linear"));
    await w.run("advance 2 s", () => w.advance(2_000));
    await approve(w);
    await w.run("advance 61 s", () => w.advance(61_000));
    expect(w.channels.calls).toEqual([]);
    expect(w.record(w.drafts[0]!)?.status).toBe("halted");
    w.channels.service("linear").credentialsRefused = false;
    await w.run("restart", () => w.restart());
    await w.run("advance 2 s", () => w.advance(2_000));
    // The post still showed the refusal: the 👍 finds another audience, shows it, and asks again.
    await approve(w);
    await w.run("advance 61 s", () => w.advance(61_000));
    expect(w.record(w.drafts[0]!)).toMatchObject({ status: "halted", reason: expect.stringContaining("audience changed") });
    await approve(w);
    await w.run("advance 61 s", () => w.advance(61_000));
    expect(w.channels.calls).toHaveLength(1);
    expect(w.record(w.drafts[0]!)?.status).toBe("sent");
  }, 60_000);
});
