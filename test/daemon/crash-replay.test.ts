/**
 * Issue 20, point 3: a crash does not replay the day's commands. Through the
 * real daemon and the Bot API double: an update whose handling finished is
 * never handled again after kill -9; an update in flight at the crash whose
 * answer had begun is not answered twice; the journal holds only what is in
 * flight and a bounded tail of handled ids.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { eventually } from "../support/daemon-process.js";
import { OWNER, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

const command = (text: string) => live.double.injectMessage({ chatId: OWNER, userId: OWNER, text });
const answersLike = (re: RegExp) => live.double.messages(OWNER).filter((m) => re.test(m.text)).length;
const HELP = /^Commands \(reviewers only\)/;

/** A new /status after the restart, answered: any replayed answer would have come before it (one answer lane, in order). */
async function statusAnswered(before: number): Promise<void> {
  command("/status");
  await live.reviewChatMessage(before, (t) => /Sends|halted/i.test(t), "the /status answer after the restart");
}

describe("after kill -9 and a restart", () => {
  it("commands handled before the crash are not answered again, nor audited or journaled anew", async () => {
    await live.start();
    const help = command("/help");
    const pending = command("/pending");
    for (const u of [help, pending]) await live.daemon.waitForLog((l) => l.msg === "update handled" && l.update_id === u.update.update_id);
    const helpBefore = answersLike(HELP);
    expect(helpBefore).toBe(1);
    const messagesBefore = live.double.messages(OWNER).length;
    await live.restart();
    expect(live.daemon.logs.some((l) => l.msg === "handling updates a stop left unhandled")).toBe(false);
    await statusAnswered(messagesBefore);
    expect(answersLike(HELP)).toBe(1);
    expect(live.double.messages(OWNER).length).toBe(messagesBefore + 1);
  });

  it("an update in flight whose answer had begun is not answered twice", async () => {
    await live.start();
    // The answer reaches Telegram, but the daemon dies before it hears back (and before it marks the update handled):
    // the double holds its answer until the process is dead, however slow the machine (a 3 s delay was not always enough).
    let killed!: () => void;
    const dead = new Promise<void>((resolve) => (killed = resolve));
    let called!: () => void;
    const inCall = new Promise<void>((resolve) => (called = resolve));
    live.double.answerWhen("sendMessage", async () => {
      called();
      await dead;
    });
    const help = command("/help");
    await inCall;
    await live.daemon.stop("SIGKILL");
    killed();
    await eventually(() => answersLike(HELP) === 1, 5_000, "the double accepted the cut-short answer");
    const journal = await readFile(harnessPaths(live.daemon.harnessDir).updates, "utf8");
    expect(journal).toContain(`"update_id":${help.update.update_id}`);
    expect(journal).not.toMatch(new RegExp(`"update_id":${help.update.update_id},"state":"handled"`));
    const messagesBefore = live.double.messages(OWNER).length;
    await live.restart();
    await statusAnswered(messagesBefore);
    expect(answersLike(HELP)).toBe(1);
  });
});
