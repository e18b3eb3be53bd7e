import { createServer as createHttpServer } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import { startLinearDouble } from "../../doubles/linear/index.js";
import { freePort, jsonLine, runBin } from "../../support/cli-process.js";
import { eventually, freshDirs } from "../../support/daemon-process.js";
import { OWNER, STRANGER, useLiveDaemon } from "../../support/live-fixture.js";

const GROUP = -1_009_990_001;
const live = useLiveDaemon();
let work: string;
let env: Record<string, string>;

beforeEach(async () => {
  live.double.addChat({ id: GROUP, type: "supergroup", title: "Review room", members: [{ userId: OWNER, status: "creator" }] });
  work = (await freshDirs()).cwd;
  // Only the token (and where the Bot API is); no daemon listens on the API port.
  env = { TELEGRAM_BOT_TOKEN: live.double.token, TELEGRAM_API_ROOT: live.double.url, DRAFT_API_PORT: String(await freePort()) };
});

/**
 * Runs setup and sends `text` from `userId` in `chatId` once setup long-polls for it. The 👍
 * check on the hello is skipped (--reaction-wait 0) unless `args` set it.
 */
async function setupWithStart(
  args: string[],
  start: { chatId: number; userId: number; text: string } | null,
  runEnv: Record<string, string> = env,
) {
  const reactionArgs = args.includes("--reaction-wait") ? [] : ["--reaction-wait", "0"];
  const run = runBin(["setup", ...args, ...reactionArgs], { cwd: work, env: runEnv });
  if (start) {
    // Setup is long-polling (the call is held open) before the owner writes.
    await eventually(() => live.double.calls("getUpdates").some((c) => c.outcome.kind === "pending"), 10_000, "setup polls");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "hello, not a command" });
    live.double.injectMessage(start);
  }
  return run;
}

describe("draft-review setup against the Bot API double", () => {
  it("finds the private chat from /start, writes .env with --yes, says hello, and confirms the updates it read", async () => {
    await writeFile(
      join(work, ".env"),
      `TELEGRAM_BOT_TOKEN=${live.double.token}\nTELEGRAM_API_ROOT=${live.double.url}\n# REVIEWER_USER_IDS=123456789\nTAO_SWARM_ENABLED=1\n`,
    );
    // The token and the API root come from .env alone.
    const run = await setupWithStart(["--yes"], { chatId: OWNER, userId: OWNER, text: "/start" }, { DRAFT_API_PORT: env.DRAFT_API_PORT! });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`✓ Token accepted: @${live.double.botInfo.username}`);
    expect(run.stdout).toContain("Waiting up to 5m for /start");
    expect(run.stdout).toContain(`✓ /start from Owner (@owner), user id ${OWNER}, in your private chat with the bot (chat id ${OWNER}).`);
    expect(run.stdout).toContain(`  REVIEW_CHAT_ID=${OWNER}\n  REVIEWER_USER_IDS=${OWNER}\n`);
    expect(run.stdout).toContain("✓ The bot can post in the review chat");
    expect(run.stdout).toContain("Done. Start the daemon with `npm start`.");
    // How to let drafts go out as the owner (Telegram Business), and where it stands.
    expect(run.stdout).toContain(`Business Mode → Turn on (it is off now)`);
    expect(run.stdout).toContain(`Settings → Telegram Business → Chatbots → add @${live.double.botInfo.username}`);
    expect(run.stdout + run.stderr).not.toContain(live.double.token.split(":")[1]!);

    const written = await readFile(join(work, ".env"), "utf8");
    expect(written).toBe(
      `TELEGRAM_BOT_TOKEN=${live.double.token}\nTELEGRAM_API_ROOT=${live.double.url}\n# REVIEWER_USER_IDS=123456789\nREVIEWER_USER_IDS=${OWNER}\nTAO_SWARM_ENABLED=1\nREVIEW_CHAT_ID=${OWNER}\n`,
    );
    expect(live.double.messages(OWNER).map((m) => m.text)).toEqual([expect.stringMatching(/^👋 draft-review is set up/)]);
    // The daemon will not see the /start, and Telegram queues reactions for it again.
    expect(live.double.pendingUpdates()).toEqual([]);
    expect(live.double.allowedUpdates).toEqual([
      "message",
      "callback_query",
      "message_reaction",
      "business_connection",
      "business_message",
    ]);

    // Run again: the values are there already, nothing to write.
    const again = await setupWithStart(["--json"], { chatId: OWNER, userId: OWNER, text: "/start" });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already has these values");
    expect(jsonLine(again)).toMatchObject({
      ok: true,
      chat: { id: OWNER, type: "private" },
      user: { id: OWNER },
      written: false,
      checks: { can_post: true, bot_is_admin: null },
    });
  });

  it("asks for a 👍 on the hello and says that it reached the bot", async () => {
    const run = setupWithStart(["--no-write", "--json", "--reaction-wait", "20"], { chatId: OWNER, userId: OWNER, text: "/start" });
    const hello = await eventually(
      () => live.double.messages(OWNER).find((m) => m.text.startsWith("👋 draft-review is set up")),
      10_000,
      "hello",
    );
    // Setup polls for the reaction (a held getUpdates after the hello) before the owner reacts.
    await eventually(
      () => live.double.calls("getUpdates").some((c) => c.outcome.kind === "pending" && c.at >= hello.at),
      10_000,
      "setup waits for the 👍",
    );
    live.double.injectReaction({ chatId: OWNER, messageId: hello.messageId, userId: OWNER, newEmojis: ["👍"] });
    const done = await run;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stderr).toContain("Now react 👍 on that hello in the review chat");
    expect(done.stderr).toContain("✓ Your 👍 reached the bot: reactions work in this chat.");
    expect(jsonLine(done)).toMatchObject({ ok: true, checks: { can_post: true, reaction_arrived: true } });
    // No channel is configured and stdin is no terminal: none is asked, each is named not configured.
    expect((jsonLine(done) as { channels: unknown[] }).channels).toEqual(
      ["linear", "email", "slack"].map((channel) => ({
        channel,
        configured: false,
        speaks_as: null,
        credentials_refused: false,
        problem: null,
        written: false,
      })),
    );
    expect(done.stderr).toContain("Channels not configured: linear, email, slack (optional;");
    // The reaction was setup's to read: the daemon will not see it; Telegram keeps the daemon's update types.
    expect(live.double.pendingUpdates()).toEqual([]);
    expect(live.double.allowedUpdates).toEqual([
      "message",
      "callback_query",
      "message_reaction",
      "business_connection",
      "business_message",
    ]);
  });

  it("says plainly when no reaction arrives within the wait, and what to use instead", async () => {
    const run = await setupWithStart(["--no-write", "--json", "--reaction-wait", "1"], { chatId: OWNER, userId: OWNER, text: "/start" });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain("⚠️ No reaction reached the bot within 1s.");
    expect(run.stderr).toMatch(/Decide with the buttons under each draft .* or use a private group where the bot is admin/);
    expect(jsonLine(run)).toMatchObject({ ok: true, checks: { reaction_arrived: false } });
  });

  it("in a group where the bot is no admin: prints the ids, does not write without a terminal, explains the fix, exit 3", async () => {
    const run = await setupWithStart([], { chatId: GROUP, userId: OWNER, text: `/start@${live.double.botInfo.username}` });
    expect(run.code, run.stdout + run.stderr).toBe(3);
    expect(run.stdout).toContain(`in the supergroup “Review room” (chat id ${GROUP})`);
    expect(run.stdout).toContain(`  REVIEW_CHAT_ID=${GROUP}\n  REVIEWER_USER_IDS=${OWNER}\n`);
    expect(run.stdout).toMatch(/stdin is not a terminal, so \.env is left as it is: run setup again with --yes/);
    expect(run.stdout).toMatch(/✗ @\w+ is not an admin in “Review room”, so Telegram will not send it reactions .*make it an admin/);
    await expect(readFile(join(work, ".env"), "utf8")).rejects.toThrow();

    live.double.addChat({ id: GROUP, type: "supergroup", botIsAdmin: true });
    const fixed = await setupWithStart(["--no-write"], { chatId: GROUP, userId: OWNER, text: "/start" });
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain("✓ The bot is an admin in the group");
    expect(fixed.stdout).toContain("--no-write: .env is left as it is");
  });

  it("explains a bot the owner blocked (cannot post), exit 3", async () => {
    live.double.addChat({ id: OWNER, type: "private", blocked: true });
    const run = await setupWithStart(["--no-write"], { chatId: OWNER, userId: OWNER, text: "/start" });
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/✗ You blocked @\w+: open the chat with it, tap Restart \(or Unblock\), then run setup again\./);
  });

  it("refuses while the daemon runs, and on a 409 says another program polls the bot", async () => {
    const fakeDaemon = createHttpServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((r) => fakeDaemon.listen(Number(env.DRAFT_API_PORT), "127.0.0.1", r));
    const running = await runBin(["setup"], { cwd: work, env });
    await new Promise((r) => fakeDaemon.close(r));
    expect(running.code).toBe(1);
    expect(running.stderr).toMatch(/the draft-review daemon is running .* stop it/);
    expect(live.double.callCount("getUpdates")).toBe(0);

    live.double.failNext("getUpdates", {
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    });
    const conflict = await runBin(["setup"], { cwd: work, env });
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/Another program is polling this bot \(409 Conflict\).*stop it while setup runs/);
  });

  it("exit 1 for a refused token, a missing token, or no /start in time", async () => {
    const wrong = await runBin(["setup"], { cwd: work, env: { ...env, TELEGRAM_BOT_TOKEN: "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Telegram refused TELEGRAM_BOT_TOKEN \(401 Unauthorized\): copy the token again from @BotFather/);
    expect(wrong.stderr).not.toContain("AAAAAAAAAAAAAAAAAAAA");

    const missing = await runBin(["setup"], { cwd: work, env: { DRAFT_API_PORT: env.DRAFT_API_PORT! } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather/);

    live.double.injectMessage({ chatId: STRANGER, userId: STRANGER, text: "/help" });
    const late = await runBin(["setup", "--timeout", "1"], { cwd: work, env });
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/no \/start reached @\w+ within 1s: send \/start to the bot/);
    expect(live.double.allowedUpdates).toEqual([
      "message",
      "callback_query",
      "message_reaction",
      "business_connection",
      "business_message",
    ]);
    expect(live.double.pendingUpdates()).toHaveLength(0); // the stranger's /help was read and confirmed
  });

  // Issue 25 point 6: the owner's own phone and email were redacted and nothing told him about PII_ALLOW.
  it("--pii-allow adds the owner's own details to PII_ALLOW (merged, each once); a value that is none exits 1 before polling", async () => {
    const bad = await runBin(["setup", "--yes", "--pii-allow", "+61 412 345 678, not-an-address"], { cwd: work, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--pii-allow: "not-an-address" is no phone number');
    expect(live.double.callCount("getUpdates")).toBe(0);

    await writeFile(join(work, ".env"), "PII_ALLOW=@owner,Owner@Tao.example\n");
    const run = await setupWithStart(["--yes", "--pii-allow", "+61 412 345 678,owner@tao.example"], {
      chatId: OWNER,
      userId: OWNER,
      text: "/start",
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`✓ Wrote PII_ALLOW=@owner,Owner@Tao.example,+61 412 345 678 to ${join(work, ".env")}`);
    const written = await readFile(join(work, ".env"), "utf8");
    expect(written).toContain("PII_ALLOW=@owner,Owner@Tao.example,+61 412 345 678\n");
    expect(written).toContain(`REVIEW_CHAT_ID=${OWNER}\n`);
  });

  it("on a terminal asks for phone numbers and addresses, asks again after one that is none, and asks before writing; then the channels", async () => {
    const { runSetup } = await import("../../../src/cli/setup/run-setup.js");
    const linear = await startLinearDouble();
    linear.state.workspace.addUser({ name: "Phill Owner", email: "phill@example.com" }, { viewer: true });
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let out = "";
    const io = {
      stdin,
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (out += t) },
      env: { ...env, LINEAR_API_URL: linear.url },
      cwd: work,
    };
    // The ids' question, the phones (one is no number: asked again), the addresses, PII_ALLOW's question;
    // then Linear's key and its write question, Enter for email and for Slack.
    stdin.write(`y\n0412 345 678, 555\n+61 412 345 678\nowner@tao.example\n\n${linear.apiKey}\n\n\n\n`);
    const done = runSetup(io, { yes: false, noWrite: false, json: false, timeoutSeconds: 30, reactionWaitSeconds: 0 });
    await eventually(() => live.double.calls("getUpdates").some((c) => c.outcome.kind === "pending"), 10_000, "setup polls");
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/start" });
    expect(await done, out).toBe(0);
    expect(out).toContain("Your phone numbers, with country code (e.g. +61 412 345 678), comma-separated; Enter skips: ");
    expect(out).toContain('  Not a phone number (7 to 15 digits, + and spaces allowed): "555".');
    expect(out).toContain(`Write PII_ALLOW=+61 412 345 678,owner@tao.example to ${join(work, ".env")}? [Y/n] `);
    expect(out).toContain("  ✓ Linear: the daemon speaks as Phill Owner (phill@example.com) in Acme.");
    expect(out).toContain("  Email skipped.");
    const written = await readFile(join(work, ".env"), "utf8");
    expect(written).toBe(
      `REVIEW_CHAT_ID=${OWNER}\nREVIEWER_USER_IDS=${OWNER}\nPII_ALLOW=+61 412 345 678,owner@tao.example\nLINEAR_API_KEY=${linear.apiKey}\n`,
    );
    await linear.close();
  });
});
