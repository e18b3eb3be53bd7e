import { afterEach, describe, expect, it } from "vitest";
import { AUDIENCES } from "./explore/commands.js";
import { World } from "./explore/world.js";

// A 👍 that waits behind an earlier update about its post (the runner serves one message's
// updates in order) is judged against the halts since it came, not since it was applied: through
// run.ts's handlers (the explorer's World), on a simulated clock. Found by the explorer, seed 400002.

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("a halt that comes and goes while a 👍 waits its turn", () => {
  it("stops that 👍: nothing is sent, the post says why and offers 👍 Send again", async () => {
    const w = await World.open(AUDIENCES.small!);
    world = w;
    await w.submit();
    const post = w.telegram.message(1)!;
    // ✏️ Edit first: its prompt waits for the review chat's pace, and the 👍 on the same post waits behind it.
    await w.tap(post, post.buttons.find((b) => b.startsWith("v1:edit:"))!, "current");
    await w.tap(post, post.buttons.find((b) => b.startsWith("v1:send:"))!, "current");
    await w.envSwitch(true);
    await w.envSwitch(false);
    await w.advance(120_000);
    expect(w.model.sends).toEqual([]);
    expect(post.text).toMatch(/^⛔ Not sent: kill switch: a halt began after the approval/);
    expect(post.buttons.some((b) => b.startsWith("v1:send:"))).toBe(true);
  });
});
