/**
 * Issue 28 point 6, through the real daemon and the Bot API double: a daemon
 * started 30 h after it last polled Telegram (its clock moved by libfaketime)
 * tells the review chat once: how long it was down, before which time a tap
 * may be lost (Telegram keeps one 24 h), and the drafts that expired
 * meanwhile, named as the owner knows them; their posts say they expired
 * while the daemon was down, not "without a decision". A restart right after
 * says nothing more. Skipped where libfaketime is not installed.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventually, freshDirs } from "../support/daemon-process.js";
import { draftRecord, OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

const FAKETIME = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1"].find((p) => existsSync(p));
const live = useLiveDaemon();

/** The environment of a daemon whose clock runs `hours` ahead of the real one (and of the test's). */
function hoursAhead(hours: number): Record<string, string> {
  return { LD_PRELOAD: FAKETIME!, FAKETIME: `+${hours}h`, DONT_FAKE_MONOTONIC: "1" };
}

const outageMessages = (from: number) =>
  live.double
    .messages(OWNER)
    .slice(from)
    .filter((m) => m.text.startsWith("⚠️ The daemon was down"));

describe("an outage longer than Telegram keeps a tap (24 h)", () => {
  it.skipIf(FAKETIME === undefined || process.env.FAKETIME !== undefined)(
    "is told once, with the time before which taps may be lost and the drafts that expired meanwhile; their posts say so",
    async () => {
      const dirs = await freshDirs();
      const env = { DRAFT_TTL: "2h", REVIEW_TIMEZONE: "Europe/Berlin" };
      const first = await live.start(env, { dirs });
      const expiring = await submitPending(first, payload("Hi all, the Q2 numbers are in and they look good."));
      await first.stop("SIGTERM");

      const before = live.double.messages(OWNER).length;
      const later = await live.start({ ...env, ...hoursAhead(30) }, { dirs });
      const told = await live.reviewChatMessage(before, (t) => t.startsWith("⚠️ The daemon was down"), "the outage message");
      expect(told.text).toMatch(
        /^⚠️ The daemon was down \(or could not reach Telegram\) for 30 h, from \d{4}-\d\d-\d\d \d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin time\)\.\n/,
      );
      expect(told.text).toMatch(
        /Telegram keeps a tap for 24 h only: a decision you made before \d{4}-\d\d-\d\d \d\d:\d\d may be lost; the later ones were applied\./,
      );
      expect(told.text).toContain(
        "Expired meanwhile, not sent (submit again where it still matters):\n• Scribe → Destination: “Hi all, the Q2 numbers are in and they…”",
      );
      expect(told.text).not.toContain(expiring.draft_id);
      // The cut-off is 24 h before the start, in REVIEW_TIMEZONE: 6 h after the stop.
      const [, from, lostBefore] = /from (\S+ \S+) .* before (\S+ \S+) may/s.exec(told.text)!;
      const berlin = (s: string) => Date.parse(`${s.replace(" ", "T")}:00Z`);
      expect(berlin(lostBefore!) - berlin(from!)).toBeGreaterThanOrEqual(6 * 3_600_000 - 60_000);
      expect(berlin(lostBefore!) - berlin(from!)).toBeLessThanOrEqual(6 * 3_600_000 + 60_000);

      const record = await eventually(async () => {
        const r = await draftRecord(later, expiring.draft_id);
        return r.status === "expired" ? r : null;
      });
      expect(record.expired_while_down).toMatchObject({ since: expect.any(String), until: expect.any(String) });
      expect(record.reason).toContain("it expired while the daemon was down");
      const post = await eventually(() => {
        const text = live.double.message(OWNER, expiring.review_message_id)?.text ?? "";
        return text.startsWith("⌛") ? text : null;
      });
      expect(post).toMatch(/^⌛ Expired while the daemon was down \(.+ to .+\): a decision made then may have been lost\. Not sent\./);
      expect(post).not.toContain("Expired without a decision");

      // Once: a restart right after (the clock still 30 h ahead) says nothing more.
      await live.restart({ ...env, ...hoursAhead(30) });
      expect(outageMessages(before)).toHaveLength(1);
    },
  );

  it("a restart after a short stop says nothing", async () => {
    const dirs = await freshDirs();
    const first = await live.start({}, { dirs });
    await first.stop("SIGTERM");
    const before = live.double.messages(OWNER).length;
    const again = await live.start({}, { dirs });
    await again.waitForLog((l) => l.msg === "draft-review is running");
    expect(outageMessages(before)).toEqual([]);
  });
});
