import { afterEach, beforeEach, expect, it } from "vitest";
import { AUDIENCES } from "./commands.js";
import { DESTINATION } from "./fake-telegram.js";
import { World } from "./world.js";

// Found by the explorer with choices (issue 34 item 9), seed 8204: sent to any of Linear, a Telegram group, Slack and
// email, the Slack delivery (after the Telegram one) went out through Telegram's sendMessage, to chat "slack:C0EXPLORE1":
// a send intent made for one delivery was applied while the draft had moved on to the next, without its checks.

let world: World;
beforeEach(async () => {
  world = await World.open(AUDIENCES.small!);
});
afterEach(async () => {
  await world.close();
});

it("each delivery of a draft sent to several at once goes through its own channel, once, as the post showed them on", async () => {
  await world.run("submit", () => world.submit("group"));
  await world.run("submit to any of linear, group, slack, email", () => world.submitChoices("any", ["linear", "group", "slack", "email"]));
  await world.run("advance 2s (the post's turn)", () => world.advance(2_000));
  const post = world.recent(0, "choice")!;
  const send = post.buttons.find((b) => b.startsWith("v1:send:"))!;
  await world.run("👍 Send to those on", () => world.tap(post, send, "current"));
  // The undo window, then the four deliveries one after another; every send is judged by the model on the way.
  for (const ms of [2_000, 31_000, 61_000]) await world.run(`advance ${ms / 1000}s`, () => world.advance(ms));
  const sends = world.model.sends.map((s) => [s.call.chatId, s.channel?.channel ?? "telegram", s.call.outcome]);
  expect(sends).toEqual([
    ["linear", "linear", "ok"],
    [DESTINATION, "telegram", "ok"],
    ["slack", "slack", "ok"],
    ["email", "email", "ok"],
  ]);
  expect(world.model.violations).toEqual([]);
});
