import { spawnSync } from "node:child_process";
import { chmod, stat, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, runBin } from "../support/cli-process.js";
import { freshDirs, MAIN_JS } from "../support/daemon-process.js";
import { useLiveDaemon } from "../support/live-fixture.js";
import { clockEnv } from "../support/clock-env.js";

// Issue 12 item 6: secrets and shutdown.

const live = useLiveDaemon();
let blackhole: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((r) => (blackhole ? blackhole.close(() => r()) : r()));
  blackhole = undefined;
});

const BOT_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw7";

describe("secrets are not echoed, and .env with a token is kept private", () => {
  it("a bot token pasted into REVIEW_CHAT_ID is not printed in the configuration error", async () => {
    const r = spawnSync(process.execPath, [MAIN_JS], {
      // An empty temp dir: a developer's .env in the checkout is never read.
      cwd: (await freshDirs()).cwd,
      env: {
        PATH: process.env.PATH ?? "",
        ...clockEnv(),
        TELEGRAM_BOT_TOKEN: BOT_TOKEN,
        REVIEW_CHAT_ID: BOT_TOKEN,
        DRAFT_API_PORT: "0x-abc123def456ghi789",
      },
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("REVIEW_CHAT_ID must be a numeric chat id");
    expect(r.stderr).not.toContain("AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw7");
    expect(r.stderr).not.toContain("abc123def456ghi789");
  });

  it("warns at start when .env holds a token and other users can read it", async () => {
    const dirs = await freshDirs();
    await writeFile(join(dirs.cwd, ".env"), `TELEGRAM_BOT_TOKEN=${live.double.token}\n`);
    await chmod(join(dirs.cwd, ".env"), 0o644);
    const daemon = await live.start({}, { dirs });
    const warning = daemon.logs.find((l) => typeof l.msg === "string" && l.msg.includes("holds a token and other users can read it"));
    expect(warning).toMatchObject({ level: 40, mode: "0644" });
    expect(String(warning!.msg)).toContain(`chmod 600 ${join(dirs.cwd, ".env")}`);
  });
});

describe("setup tightens a .env that holds the token", () => {
  it("finds .env at 0644 with the token in it, tightens it to 0600 and says so", async () => {
    const dirs = await freshDirs();
    const envPath = join(dirs.cwd, ".env");
    await writeFile(envPath, `TELEGRAM_BOT_TOKEN=${live.double.token}\nTELEGRAM_API_ROOT=${live.double.url}\n`);
    await chmod(envPath, 0o644);
    const run = await runBin(["setup", "--timeout", "1", "--no-write"], {
      cwd: dirs.cwd,
      env: { DRAFT_API_PORT: String(await freePort()) },
    });
    expect(run.stdout).toContain(`✓ ${envPath} holds the bot token and other users could read it (mode 0644): tightened it to 0600.`);
    expect((await stat(envPath)).mode & 0o777).toBe(0o600);
  });
});

describe("SIGTERM while Telegram is unreachable at start", () => {
  it("stops the daemon within seconds (the start-up connect is aborted)", async () => {
    // A Bot API that accepts connections and never answers.
    const connected = new Promise<void>((resolve) => {
      blackhole = createServer((socket) => {
        sockets.push(socket);
        resolve();
      });
    });
    await new Promise<void>((r) => blackhole!.listen(0, "127.0.0.1", r));
    const port = (blackhole!.address() as { port: number }).port;
    const dirs = await freshDirs();
    const daemon = await live.start(
      { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_API_ROOT: `http://127.0.0.1:${port}` },
      { dirs, waitUntilRunning: false },
    );
    await connected;
    const asked = Date.now();
    daemon.child.kill("SIGTERM");
    const code = await Promise.race([daemon.exited, new Promise<"still running">((r) => setTimeout(() => r("still running"), 5_000))]);
    expect(code).toBe(0);
    expect(Date.now() - asked).toBeLessThan(5_000);
  });
});
