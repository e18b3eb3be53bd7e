import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, pathExists } from "../support/daemon-process.js";
import { auditLines, OWNER, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

// Issue 12 item 2: "/resume" in any text (a draft's too) is one tap away; it must not lift a halt by itself.

const live = useLiveDaemon();

/** The daemon's next message in the review chat (after the first `before`) that matches. */
const nextMessage = (before: number, match: RegExp) => live.reviewChatMessage(before, match, `a message matching ${match}`);

describe("/resume asks for a reviewer's confirmation tap", () => {
  it("a tapped /resume only asks; a stranger's or a stale tap changes nothing; the owner's tap lifts the halt and says so", async () => {
    await live.start({ TELEGRAM_RATE_SCALE: "10" });
    const haltFile = join(live.daemon.harnessDir, "HALT");
    await writeFile(haltFile, "{}\n", { mode: 0o600 });

    // What Telegram delivers when the owner taps "/resume" inside a draft's text: a plain command from the owner.
    let before = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/resume" });
    const ask = await nextMessage(before, /^⚠️ Resume sends\?/);
    expect(await pathExists(haltFile)).toBe(true);
    const data = JSON.stringify(ask.replyMarkup).match(/owner:resume:[0-9a-f]+/)![0];

    // A stranger in the review chat taps the button: refused, audited, answered; the halt stays.
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: STRANGER, data });
    await eventually(() => live.double.answeredCallbacks().length === 1);
    expect(live.double.answeredCallbacks()[0]!.text).toBe("Only a reviewer can resume sends. Nothing changed.");
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "command_refused");
    expect(refused).toEqual([
      expect.objectContaining({ command: "resume", reason: "not_a_reviewer", channel: "button", user_id: STRANGER }),
    ]);
    expect(await pathExists(haltFile)).toBe(true);

    // A button whose token was never issued (forged data) changes nothing.
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data: "owner:resume:0123456789abcdef" });
    await eventually(() => live.double.answeredCallbacks().length === 2);
    expect(live.double.answeredCallbacks()[1]!.text).toMatch(/no longer valid: nothing changed/);
    expect(await pathExists(haltFile)).toBe(true);

    // The owner's tap on the real button lifts the halt, and the chat says so.
    before = live.double.messages(OWNER).length;
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data });
    const done = await nextMessage(before, /halt is lifted/);
    expect(done.text).toMatch(/^Your halt is lifted\. ✅ Sends enabled\./);
    expect(await pathExists(haltFile)).toBe(false);
    await eventually(() => live.double.answeredCallbacks().length === 3);
    expect(live.double.answeredCallbacks()[2]!.text).toBe("Resumed.");
    expect(live.double.message(OWNER, ask.messageId)?.reply_markup?.inline_keyboard ?? []).toEqual([]);

    // The same button a second time: used up.
    live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: OWNER, data });
    await eventually(() => live.double.answeredCallbacks().length === 4);
    expect(live.double.answeredCallbacks()[3]!.text).toMatch(/no longer valid/);
    const resumes = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "owner_resume");
    expect(resumes).toEqual([expect.objectContaining({ user_id: OWNER, changed: true })]);
  });
});
