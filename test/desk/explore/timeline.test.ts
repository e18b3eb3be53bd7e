import { describe, expect, it } from "vitest";
import type { ChatMessage, Version } from "./fake-telegram.js";
import { unansweredReplies, undoAfterSendProblem, undoShown, undoWindowProblem } from "./timeline.js";

const WINDOW = 10_000;
const UNDO = "v1:undo:d1";

function post(id: number, versions: Version[]): ChatMessage {
  const last = versions.at(-1)!;
  return {
    id,
    fromBot: true,
    text: last.text,
    entities: [],
    buttons: [...last.buttons],
    everButtons: new Set(versions.flatMap((v) => v.buttons)),
    replyTo: null,
    quoted: null,
    versions,
  };
}
const pending = (at: number): Version => ({ at, text: "⏳ Awaiting your decision.", buttons: ["v1:send:d1"] });
const approved = (at: number, sendAt: string): Version => ({ at, text: `👍 Approved · Sending at ${sendAt}`, buttons: [UNDO] });
const sent = (at: number): Version => ({ at, text: "✅ Sent", buttons: [] });

describe("the explorer's clock of what the owner saw (contract v4: the undo window is what the chat shows)", () => {
  it("a send a whole window after Telegram accepted the edit that showed ↩️ Undo passes", () => {
    const chat = [post(1, [pending(0), approved(7_200, "a"), sent(17_200)])];
    expect(undoWindowProblem(undoShown(chat, "d1"), 17_200, WINDOW)).toBeNull();
  });

  it("issue 25's burst: the 👍 at 0, its Undo shown at 7.2 s, the send at 12.5 s is a violation", () => {
    const chat = [post(1, [pending(0), approved(7_200, "a"), sent(12_500)])];
    expect(undoWindowProblem(undoShown(chat, "d1"), 12_500, WINDOW)).toMatch(/not visible for the whole 10.0 s window/);
  });

  it("an Undo taken off early (undone, then approved again) does not count: the new approval's window starts again", () => {
    const chat = [post(1, [pending(0), approved(1_000, "a"), pending(4_000), approved(5_000, "b")])];
    expect(undoWindowProblem(undoShown(chat, "d1"), 11_000, WINDOW)).toMatch(/not visible/);
    expect(undoWindowProblem(undoShown(chat, "d1"), 15_000, WINDOW)).toBeNull();
    // Approved again with no "pending" edit between: the post says another send time, a new stretch.
    const coalesced = [post(1, [pending(0), approved(1_000, "a"), approved(5_000, "b")])];
    expect(undoWindowProblem(undoShown(coalesced, "d1"), 11_000, WINDOW)).toMatch(/not visible/);
  });

  it("no message ever showed the Undo: a violation; UNDO_WINDOW 0: nothing to show", () => {
    expect(undoWindowProblem(undoShown([post(1, [pending(0)])], "d1"), 60_000, WINDOW)).toMatch(/no message ever showed/);
    expect(undoWindowProblem([], 60_000, 0)).toBeNull();
  });

  it("a ↩️ Undo on a separate message counts as on the post", () => {
    const chat = [post(1, [pending(0)]), post(2, [approved(2_000, "a"), sent(12_000)])];
    expect(undoWindowProblem(undoShown(chat, "d1"), 12_000, WINDOW)).toBeNull();
  });

  it("once sent, an Undo offered for more than 2 s is a violation, judged once 2 s have passed", () => {
    const late = [post(1, [pending(0), approved(1_000, "a"), sent(14_500)])];
    expect(undoAfterSendProblem(undoShown(late, "d1"), 12_000, 20_000)).toMatch(/more than 2.0 s after the draft was sent/);
    const prompt = [post(1, [pending(0), approved(1_000, "a"), sent(13_000)])];
    expect(undoAfterSendProblem(undoShown(prompt, "d1"), 12_000, 20_000)).toBeNull();
    const still = [post(1, [pending(0), approved(1_000, "a")])];
    expect(undoAfterSendProblem(undoShown(still, "d1"), 12_000, 13_000)).toBeNull();
    expect(undoAfterSendProblem(undoShown(still, "d1"), 12_000, 14_001)).toMatch(/still does/);
  });

  it("a reviewer reply is answered by a call its update made, or by an edit of its message within a minute (two 👍 shown by one edit)", () => {
    const replies = [1, 2, 3].map((updateId) => ({ updateId, messageId: 10 + updateId, target: 1, text: "👍", at: updateId * 100_000 }));
    const chat = new Map([[1, post(1, [pending(0), approved(200_500, "a"), sent(400_000 + 61_000)])]]);
    // 1: its own call; 2: the post edited half a second after it; 3: the next edit came after a minute.
    expect(unansweredReplies(replies, new Set([1]), chat).map((r) => r.updateId)).toEqual([3]);
  });
});
