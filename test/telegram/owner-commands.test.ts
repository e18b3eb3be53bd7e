import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLine, runBin } from "../support/cli-process.js";
import { eventually, TEST_API_TOKEN, pathExists } from "../support/daemon-process.js";
import { auditLines, GROUP, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

/** The review chat's own pacing, 10x faster against the double (answers still go through it, in order). */
const FAST = { TELEGRAM_RATE_SCALE: "10" };

/** The owner writes `text` in the review chat; resolves with the daemon's next message there that matches. */
async function command(text: string, answer: RegExp, from = OWNER): Promise<string> {
  const before = live.double.messages(OWNER).length;
  live.double.injectMessage({ chatId: OWNER, userId: from, text });
  return (await live.reviewChatMessage(before, answer, `an answer to ${text}`)).text;
}

/** Taps the button of the latest /resume confirmation as `from`; resolves with the daemon's next matching message. */
async function confirmResume(answer: RegExp, from = OWNER): Promise<string> {
  const ask = [...live.double.messages(OWNER)].reverse().find((m) => m.text.startsWith("⚠️ Resume sends?"))!;
  const data = JSON.stringify(ask.replyMarkup).match(/owner:resume:[0-9a-f]+/)![0];
  const before = live.double.messages(OWNER).length;
  live.double.injectCallback({ chatId: OWNER, messageId: ask.messageId, userId: from, data });
  return (await live.reviewChatMessage(before, answer, "an answer to the tap")).text;
}

async function statusOf(id: string): Promise<string> {
  return (await live.daemon.request("GET", `/drafts/${id}`)).body.status;
}

describe("owner commands in the review chat (live daemon against the double)", () => {
  it("/halt then 👍 halts; strangers are ignored and audited; /status, /pending, /resume; GET /status and the CLI agree", async () => {
    await live.start(FAST);
    const haltFile = join(live.daemon.harnessDir, "HALT");
    const [menu] = live.double.calls("setMyCommands");
    expect(menu?.params).toMatchObject({ scope: { type: "chat", chat_id: String(OWNER) } });
    expect((menu!.params.commands as Array<{ command: string }>).map((c) => c.command)).toEqual([
      "pending",
      "status",
      "report",
      "halt",
      "resume",
      "help",
    ]);

    const draft = (await live.daemon.request("POST", "/drafts", payload("Hold this one"))).body;
    expect(draft.status).toBe("pending");

    expect(await command(`/halt@${live.double.botInfo.username}`, /Sends halted/)).toMatch(
      /^⛔ Sends halted\. Nothing goes out until \/resume/,
    );
    expect(await pathExists(haltFile)).toBe(true);
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await statusOf(draft.draft_id)) === "halted", 10_000, "the approval halts");
    expect(live.double.messages(GROUP)).toHaveLength(0);

    // A stranger writing to the bot, and a stranger in the review chat: ignored, audited, unanswered.
    const ownerMessages = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: STRANGER, userId: STRANGER, text: "/resume" });
    live.double.injectMessage({ chatId: OWNER, userId: STRANGER, text: "/resume" });
    await eventually(async () => (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "command_refused").length === 2);
    const refused = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "command_refused");
    expect(refused.map((l) => [l.command, l.reason, l.user_id, l.chat_id])).toEqual([
      ["resume", "other_chat", STRANGER, String(STRANGER)],
      ["resume", "not_a_reviewer", STRANGER, String(OWNER)],
    ]);
    expect(await pathExists(haltFile)).toBe(true);

    const status = await command("/status", /^draft-review \(live mode\)/);
    expect(status).toContain("⛔ Sends HALTED: halted by the owner (/halt or draft-review halt)");
    expect(status).toContain("Awaiting a decision: 0 pending, 0 deferred, 1 halted");
    expect(live.double.messages(STRANGER)).toHaveLength(0);
    expect(
      live.double
        .messages(OWNER)
        .slice(ownerMessages)
        .filter((m) => /resume|halt is lifted/i.test(m.text)),
    ).toHaveLength(0);

    const pending = await command("/pending", /awaiting a decision/);
    expect(pending).toContain("1. Scribe → “Destination” · halted · ");
    expect(pending).not.toContain(`message ${draft.review_message_id}`);

    const api = (await live.daemon.request("GET", "/status")).body;
    expect(api).toMatchObject({ mode: "live", kill_switch: { halted: true }, queue: { halted: 1 } });
    const cliEnv = {
      DRAFT_API_PORT: new URL(live.daemon.apiUrl).port,
      DRAFT_API_TOKEN: TEST_API_TOKEN,
      HARNESS_DIR: live.daemon.harnessDir,
    };
    const cli = await runBin(["status", "--json"], { cwd: live.daemon.cwd, env: cliEnv });
    expect(jsonLine(cli)).toMatchObject({ kill_switch: { halted: true }, queue: { halted: 1 } });

    await command("/resume", /^⚠️ Resume sends\?/);
    expect(await pathExists(haltFile)).toBe(true);
    expect(await confirmResume(/halt is lifted/)).toBe(
      "Your halt is lifted. ✅ Sends enabled. Drafts halted meanwhile need a new 👍: /pending lists them.",
    );
    expect(await pathExists(haltFile)).toBe(false);
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, oldEmojis: ["👍"], newEmojis: [] });
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent after /resume and a new 👍");
    const help = await command("/help", /^Commands \(reviewers only\)/);
    expect(help).toContain("/halt — Halt every send until /resume");
    // Issue 20 point 8: /help names ✏️ Edit and ↩️ Undo.
    expect(help).toContain("✏️ Edit");
    expect(help).toContain("↩️ Undo");

    const owner = (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "owner_halt" || l.kind === "owner_resume");
    expect(owner).toEqual([
      expect.objectContaining({
        kind: "owner_halt",
        user_id: OWNER,
        channel: "command",
        changed: true,
        source: "telegram-draft-for-review",
      }),
      expect.objectContaining({ kind: "owner_resume", user_id: OWNER, channel: "command", changed: true }),
    ]);
  });

  it("`draft-review halt` while the daemon runs halts its next send, and its audit chain stays intact", async () => {
    await live.start(FAST);
    const draft = (await live.daemon.request("POST", "/drafts", payload("CLI halt"))).body;
    const cliEnv = { HARNESS_DIR: live.daemon.harnessDir };
    expect((await runBin(["halt"], { cwd: live.daemon.cwd, env: cliEnv })).code).toBe(0);
    live.double.injectReaction({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await statusOf(draft.draft_id)) === "halted", 10_000, "halted by the CLI's HALT");
    const verify = await runBin(["audit", "verify", "--json"], { cwd: live.daemon.cwd, env: cliEnv });
    expect(verify.code).toBe(0);
    expect(jsonLine(verify)).toMatchObject({
      ok: true,
      chains: [
        { source: "telegram-draft-for-review", ok: true },
        { source: "draft-review-cli", ok: true, lines: 1 },
      ],
    });
  });

  it("a /resume tap on a message that is no /resume question (a draft's post) is refused and never rewrites it", async () => {
    await live.start(FAST);
    const draft = (await live.daemon.request("POST", "/drafts", payload("Keep my post"))).body;
    const shown = live.double.history(OWNER, draft.review_message_id).at(-1)?.text;
    live.double.injectCallback({ chatId: OWNER, messageId: draft.review_message_id, userId: OWNER, data: "owner:resume:00000000000000ab" });
    await eventually(
      async () => (await auditLines(live.daemon.harnessDir)).some((l) => l.kind === "command_refused" && l.command === "resume"),
      10_000,
      "the tap is refused and audited",
    );
    const versions = live.double.history(OWNER, draft.review_message_id);
    expect(versions.map((v) => v.text).filter((t) => t?.includes("Resume sends?"))).toEqual([]);
    expect(versions.at(-1)?.text).toBe(shown);
  });
});
