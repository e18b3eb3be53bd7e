import { beforeEach, describe, expect, it } from "vitest";
import { freePort, jsonLine, runBin } from "../../support/cli-process.js";
import { eventually, freshDirs } from "../../support/daemon-process.js";
import { OWNER, useLiveDaemon } from "../../support/live-fixture.js";

/** Issue 27 point 1: setup says whether the bot's topics are on (getMe's has_topics_enabled) and how to turn them on. */

const live = useLiveDaemon();
let work: string;
let env: Record<string, string>;

beforeEach(async () => {
  work = (await freshDirs()).cwd;
  env = { TELEGRAM_BOT_TOKEN: live.double.token, TELEGRAM_API_ROOT: live.double.url, DRAFT_API_PORT: String(await freePort()) };
});

async function setup() {
  const run = runBin(["setup", "--no-write", "--json", "--reaction-wait", "0"], { cwd: work, env });
  await eventually(() => live.double.calls("getUpdates").some((c) => c.outcome.kind === "pending"), 10_000, "setup polls");
  live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/start" });
  return run;
}

describe("draft-review setup and topics", () => {
  it("topics off for the bot: says how to turn them on in @BotFather", async () => {
    const run = await setup();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`Topics are off for @${live.double.botInfo.username}`);
    expect(run.stderr).toContain(`@BotFather: /mybots → @${live.double.botInfo.username} → Bot Settings → Topics`);
    expect(jsonLine(run)).toMatchObject({ ok: true, topics_enabled: false });
  });

  it("topics on: says each role gets a topic", async () => {
    live.double.setTopicsEnabled(true);
    const run = await setup();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`✓ Topics are on for @${live.double.botInfo.username}`);
    expect(jsonLine(run)).toMatchObject({ ok: true, topics_enabled: true });
  });
});
