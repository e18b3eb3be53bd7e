/**
 * Issue 20, point 4: a private review chat is paced at one message a second
 * with no per-minute cap (contract v3 "Review chat pace"), and a burst gets one
 * summary line before its posts. Through the real daemon and the Bot API
 * double enforcing Telegram's limits, both at 4x speed (TELEGRAM_RATE_SCALE
 * and the double's timeScale): 30 drafts reach the owner's private chat within
 * 40 Telegram seconds, without one 429.
 */
import { describe, expect, it } from "vitest";
import { startTelegramDouble } from "../telegram-double/index.js";
import { eventually } from "../support/daemon-process.js";
import { GROUP, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

const SCALE = 4;

const live = useLiveDaemon({
  double: () =>
    startTelegramDouble({
      chats: [
        { id: OWNER, type: "private", firstName: "Owner" },
        { id: GROUP, type: "supergroup", title: "Destination" },
      ],
      users: [{ id: OWNER, firstName: "Owner", username: "owner" }],
      rateLimits: { timeScale: 1 / SCALE },
    }),
});

describe("a burst of 30 drafts to a private review chat", () => {
  it("reaches it within 40 s (Telegram time), 0 × 429, after one summary line", async () => {
    await live.start({ TELEGRAM_RATE_SCALE: String(SCALE) });
    const roles = ["Scribe", "CoS", "Margot"];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        live.daemon.request(
          "POST",
          "/drafts",
          payload(`Burst draft ${i}`, { drafted_by_role: roles[i % 3], originating_intent_id: `i-${i}` }),
        ),
      ),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const posts = () => live.double.messages(OWNER).filter((m) => m.text.includes("Burst draft"));
    await eventually(() => posts().length === 30, 30_000, "30 review posts");
    // From the first post the chat took to the last: one a second is about 30 s; a group's 20-a-minute cap would be
    // 60 s or more. (Counted from the first post, not the first POST: 30 intakes on a loaded machine are not the pace.)
    const telegramSeconds = ((posts().at(-1)!.at - posts()[0]!.at) * SCALE) / 1000;
    expect(telegramSeconds).toBeLessThanOrEqual(40);
    expect(live.double.tooManyRequestsCount).toBe(0);
    const texts = live.double.messages(OWNER).map((m) => m.text);
    const summaries = texts.filter((t) => t.startsWith("📥"));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatch(/^📥 \d+ new drafts: \d+ \w+, \d+ \w+, \d+ \w+\. They follow below\.$/);
    // Before every post it counts (the first post may have gone at once).
    expect(texts.indexOf(summaries[0]!)).toBeLessThanOrEqual(1);
  });
});
