import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAIN_JS } from "../support/daemon-process.js";
import { clockEnv } from "../support/clock-env.js";

const made: string[] = [];
afterAll(async () => {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
});

/** Starts the daemon in an empty temp dir (a developer's `.env` in the checkout is never read), with `env` alone. */
function start(env: Record<string, string>) {
  const cwd = mkdtempSync(join(tmpdir(), "dr-startup-"));
  made.push(cwd);
  return spawnSync(process.execPath, [MAIN_JS], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...clockEnv(), ...env },
    encoding: "utf8",
    timeout: 10_000,
  });
}

describe("start-up with a bad configuration", () => {
  it("stops without a token, naming it and saying where to get one", () => {
    const r = start({ REVIEW_CHAT_ID: "123" });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("TELEGRAM_BOT_TOKEN is not set");
    expect(r.stderr).toContain("@BotFather");
  });

  // Issue 19 row 12: a duration past its limit refuses the start, naming the variable and the limit.
  it("stops on a duration past its limit, naming the variable and the limit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dr-startup-"));
    try {
      const r = spawnSync(process.execPath, [MAIN_JS], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? "",
          TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ",
          TELEGRAM_API_ROOT: "http://127.0.0.1:9",
          REVIEW_CHAT_ID: "123",
          HARNESS_DIR: join(dir, "h"),
          DRAFT_RETENTION: "100000001d",
        },
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(r.status, r.stderr).toBe(78);
      expect(r.stderr).toMatch(/DRAFT_RETENTION must be a duration .*at most 3650d/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops without REVIEW_CHAT_ID, saying how to find the id", () => {
    const r = start({ TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ" });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("REVIEW_CHAT_ID is not set");
    expect(r.stderr).toContain("To find it");
    expect(r.stderr).not.toContain("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  });
});
