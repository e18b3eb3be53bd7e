// Tests src/daemon/owner-features.ts (kept here: test/daemon belongs to the daemon's own suite).
import { describe, expect, it } from "vitest";
import type { Api } from "grammy";
import type { Core } from "../../src/app/core.js";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { loadConfig } from "../../src/config/config.js";
import { ownerFeatures } from "../../src/daemon/owner-features.js";
import type { Logger } from "../../src/log/logger.js";

const H = 3_600_000;

describe("ownerFeatures", () => {
  it("registers the command menu for the review chat, serves the status report, and posts the digest at DIGEST_HOUR", async () => {
    const clock = new SimulatedClock(new Date(2030, 0, 2, 7, 0).getTime());
    const config = loadConfig({ TAO_DRAFT_REVIEW_TEST: "1", REVIEW_CHAT_ID: "5550001", DIGEST_HOUR: "8" });
    const sent = { drafted_by_role: "Scribe", status: "sent", updated_at: new Date(clock.now() - H).toISOString() };
    const core = {
      desk: { list: () => [sent] },
      killSwitch: { check: async () => ({ halted: false }) },
      audit: { append: async () => {} },
      archive: { problems: () => [] },
      voice: {
        status: () => ({
          connected: false,
          connection_id: null,
          user_id: null,
          user_name: null,
          enabled: false,
          can_reply: false,
          checked_at: null,
          open_chats: 0,
        }),
      },
    } as unknown as Core;
    const menus: unknown[] = [];
    const api = { setMyCommands: async (commands: unknown, other: unknown) => (menus.push({ commands, other }), true) } as unknown as Api;
    const said: string[] = [];
    const log = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as unknown as Logger;
    const owner = ownerFeatures({ config, core, say: async (t) => void said.push(t), sendPhoto: async () => 1, api, clock, log });

    await owner.start();
    expect(menus).toEqual([
      {
        commands: expect.arrayContaining([expect.objectContaining({ command: "halt" })]),
        other: { scope: { type: "chat", chat_id: "5550001" } },
      },
    ]);
    expect(await owner.status()).toMatchObject({
      mode: "test",
      digest_hour: 8,
      today: { counts: { sent: 1 } },
      business: { connected: false },
    });

    await clock.advance(H, () => new Promise((r) => setImmediate(r)));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("Scribe: 1 sent · 0 revised · 0 expired · 0 failed · 0 waiting");
    await owner.stop();
    await clock.advance(48 * H);
    expect(said).toHaveLength(1);
  });
});
