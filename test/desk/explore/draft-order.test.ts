import { expect, it } from "vitest";
import { AUDIENCES } from "./commands.js";
import { World } from "./world.js";

// Found by the explorer with choices (issue 34 item 9), seed 8201 of a budget run: the owner tapped "Yes, send" on a
// confirmation question, then replied `undo` to the draft's post, in the same second. The two updates were about two
// messages, so they ran side by side: the undo was handled first ("↩️ Nothing to undo: the draft is pending"), then
// the confirmation approved the draft, and it was sent. Updates about one draft now run in Telegram's order.
// A race on real time (about one run in five before the fix): the scenario runs eight times.

async function confirmThenUndo(): Promise<{ sends: number; post: string; nothingToUndo: boolean }> {
  const world = await World.open(AUDIENCES.small!);
  try {
    world.channels.setAudience("linear", "external");
    await world.run("submit (linear, an external address: the 👍 asks to confirm)", () => world.submit("linear"));
    const post = world.recent(0)!;
    await world.run("👍 Send", () => world.tap(post, post.buttons.find((b) => b.startsWith("v1:send:"))!, "current"));
    await world.run("advance 61s", () => world.advance(61_000));
    // Another draft's post, and its ✏️ Edit prompt, take the review chat's turns first.
    await world.run("submit to choose one of linear, email, group", () => world.submitChoices("one", ["linear", "email", "group"]));
    const other = world.recent(0, "choice")!;
    await world.run("✏️ Edit on it", () => world.tap(other, other.buttons.find((b) => b.startsWith("v1:edit:"))!, "current"));
    const question = world.recent(0, "question")!;
    await world.run('"Yes, send"', () => world.tap(question, question.buttons.find((b) => b.startsWith("v1:confirm:"))!, "current"));
    await world.run("reply undo to the post", () => world.write("undo", post, null));
    await world.run("advance 61s", () => world.advance(61_000));
    return {
      sends: world.model.sends.filter((s) => s.call.chatId === "linear").length,
      post: post.text.split("\n")[0]!,
      nothingToUndo: world.telegram.messages.some((m) => m.text.startsWith("↩️ Nothing to undo")),
    };
  } finally {
    await world.close();
  }
}

it("a reply `undo` on the post right after 'Yes, send' on its question is handled after it: undone, never sent", async () => {
  for (let i = 0; i < 8; i++) {
    expect(await confirmThenUndo()).toEqual({ sends: 0, post: "↩️ Undone: the draft awaits your decision again.", nothingToUndo: false });
  }
});
