import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { MAIN_JS } from "../support/daemon-process.js";
import { clockEnv } from "../support/clock-env.js";

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [MAIN_JS], {
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

  it("stops without REVIEW_CHAT_ID, saying how to find the id", () => {
    const r = start({ TELEGRAM_BOT_TOKEN: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ" });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("REVIEW_CHAT_ID is not set");
    expect(r.stderr).toContain("To find it");
    expect(r.stderr).not.toContain("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  });
});
