import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { pngSize } from "../../src/report/render-png.js";
import { jsonLine, runBin } from "../support/cli-process.js";
import { shiftedClockEnv } from "../support/clock-env.js";
import { eventually, freshDirs, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, GROUP, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issues 22, 27 and 28 against the real daemon and the Bot API double: the
 * report's numbers from a history the daemon made, /report on demand, and the
 * weekly picture on REPORT_DAY: once across restarts and crashes, never for a
 * week without drafts, and for a REPORT_DAY the daemon was down for, at the
 * next start. Histories "days ago" are made by daemons whose clock libfaketime
 * moves back (shiftedClockEnv).
 */

const live = useLiveDaemon();
type Rec = Record<string, any>;

const DAY = 86_400_000;
const hasFaketime = spawnSync("faketime", ["--version"], { stdio: "ignore" }).status === 0;

/**
 * A zone where it is now between 12:00 and 13:00, and the weekday `daysAgo`
 * days before today there: with REPORT_DAY that day, its 09:00 has passed.
 */
function noonZone(daysAgo = 0): { zone: string; day: string } {
  const offset = 12 - new Date().getUTCHours();
  const zone = offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
  const day = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short" })
    .format(new Date(Date.now() - daysAgo * DAY))
    .toLowerCase();
  return { zone, day };
}

/** `Mon 7 Dec 09:00`: the local day `daysAgo` days before today in `zone`, at 09:00, as the caption names it. */
function nineOClock(zone: string, daysAgo: number): string {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short" }).formatToParts(
    new Date(Date.now() - daysAgo * DAY),
  );
  const get = (type: string) => parts.find((p) => p.type === type)?.value;
  return `${get("weekday")} ${get("day")} ${get("month")} 09:00`;
}

async function record(d: DaemonProcess, id: string): Promise<Rec> {
  return (await d.request("GET", `/drafts/${id}`)).body;
}

async function posted(d: DaemonProcess, text: string, role: string): Promise<Rec> {
  const res = await d.request("POST", "/drafts", payload(text, { drafted_by_role: role }));
  expect(res.status).toBe(201);
  return eventually(async () => ((await record(d, res.body.draft_id)).status === "pending" ? record(d, res.body.draft_id) : null));
}

async function status(d: DaemonProcess, id: string, want: string): Promise<Rec> {
  return eventually(async () => ((await record(d, id)).status === want ? record(d, id) : null), 10_000, `${id} ${want}`);
}

describe("draft-review report and the weekly picture, live", () => {
  it("counts the daemon's history with its notes; no weekly picture for a week without drafts; /report answers reviewers only", async () => {
    const { zone, day } = noonZone();
    const env = { UNDO_WINDOW: "0", TELEGRAM_RATE_SCALE: "20", REVIEW_TIMEZONE: zone };
    const d = await live.start(env);
    // Nothing to draw yet: /report answers in words.
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/report" });
    await live.reviewChatMessage(
      0,
      /^No drafts were made in the last 7 days \(.+\), so there is no picture\.$/,
      "the empty /report's answer",
    );
    const a = await posted(d, "Weekly numbers are in.", "Scribe");
    const b = await posted(d, "Please review the plan.", "CoS");
    const c = await posted(d, "See you Thursday.", "Margot");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    live.double.injectMessage({
      chatId: OWNER,
      userId: OWNER,
      text: "Too stiff; say it like I would.",
      replyToMessageId: b.review_message_id,
    });
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "✏️ See you Friday.", replyToMessageId: c.review_message_id });
    const c2 = await eventually(async () => {
      const r = await record(d, c.draft_id);
      return r.status === "pending" && r.review_message_id !== c.review_message_id ? r : null;
    });
    live.double.injectReaction({ chatId: OWNER, messageId: c2.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    await status(d, a.draft_id, "sent");
    await status(d, b.draft_id, "revise");
    await status(d, c.draft_id, "sent");

    const cli = { cwd: d.cwd, env: { HARNESS_DIR: d.harnessDir, REVIEW_TIMEZONE: zone } };
    const report = jsonLine(await runBin(["report", "--json"], cli));
    expect(Object.keys(report)).toEqual(["since", "until", "roles", "destinations", "picks", "previous"]);
    expect(report.roles.CoS.notes).toEqual(["Too stiff; say it like I would."]);
    expect(report.previous.roles.CoS).toMatchObject({ drafts: 0, notes: [] });
    expect(report.roles.Scribe).toMatchObject({ drafts: 1, sent: 1, revise: 0, edited: 0, undone: 0 });
    expect(report.roles.CoS).toMatchObject({ drafts: 1, sent: 0, revise: 1, restored: 0 });
    expect(report.roles.Margot).toMatchObject({ drafts: 1, sent: 1, edited: 1 });
    expect(report.roles.Scribe.decision_p50_s).toBeGreaterThanOrEqual(0);
    expect(report.roles.Scribe.decision_p50_s).toBeLessThan(60);
    expect(report.destinations[String(GROUP)]).toMatchObject({ drafts: 3, sent: 2, revise: 1, edited: 1 });
    const table = await runBin(["report"], cli);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Destination\s+drafts/m);
    expect(table.stdout).toMatch(/^Destination\s+3\s+2\s+1/m); // the group's title, "Destination"
    expect(Math.max(...table.stdout.split("\n").map((l) => [...l].length))).toBeLessThanOrEqual(80);
    const edits = jsonLine(await runBin(["report", "--edits", "--json"], cli));
    expect(edits.roles).toEqual({
      Margot: [expect.objectContaining({ draft_id: c.draft_id, drafted: "See you Thursday.", sent: "See you Friday." })],
    });

    // REPORT_DAY is today and 09:00 has passed, but no draft was made in the week that ended then: no picture.
    const again = await live.restart({ ...env, REPORT_DAY: day });
    await again.waitForLog((l) => l.msg === "no weekly report due at start: no drafts in the last weeks", 20_000);
    expect(live.double.photos()).toHaveLength(0);

    // /report: a stranger's is refused and audited; the reviewer's brings the picture.
    live.double.injectMessage({ chatId: STRANGER, userId: STRANGER, text: "/report" });
    await eventually(
      async () => (await auditLines(again.harnessDir)).some((l) => l.kind === "command_refused" && l.command === "report"),
      10_000,
      "the stranger's /report audited",
    );
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/report" });
    const photo = await eventually(() => live.double.photos(OWNER)[0], 20_000, "the /report picture");
    expect(photo.caption).toMatch(/^Report, .*: 3 drafts, 2 sent, 1 sent back, 0 expired\.$/);
    expect(photo.caption).not.toContain("\n");
    expect([...photo.file.data.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(pngSize(photo.file.data)).toEqual({ width: 1080, height: photo.height });
    expect(photo.height).toBeGreaterThan(800);
    expect(photo.height).toBeLessThan(2600);
    expect(photo.file.data.length).toBeLessThan(1_000_000);
    expect(live.double.photos()).toHaveLength(1);
    const postedLines = async () => (await auditLines(again.harnessDir)).filter((l) => l.kind === "report_posted");
    await eventually(async () => (await postedLines()).map((l) => l.trigger).join() === "command", 10_000, "/report audited");
  }, 120_000);
});

/** A daemon whose clock is `daysAgo` days back posts `texts` as Scribe drafts on `dirs`, then stops: history from then. */
async function historyDaysAgo(dirs: { cwd: string; harnessDir: string }, daysAgo: number, env: Record<string, string>, texts: string[]) {
  const past = await live.start({ ...env, ...shiftedClockEnv(-daysAgo * DAY) }, { dirs });
  for (const text of texts) await posted(past, text, "Scribe");
  expect(await past.stop("SIGTERM")).toBe(0);
}

describe("the weekly picture, once", () => {
  it("a first REPORT_DAY with no drafts posts nothing", async () => {
    const { zone, day } = noonZone();
    const d = await live.start({ REVIEW_TIMEZONE: zone, REPORT_DAY: day });
    await d.waitForLog((l) => l.msg === "no weekly report due at start: no drafts in the last weeks", 20_000);
    expect(live.double.photos()).toHaveLength(0);
    expect((await auditLines(d.harnessDir)).filter((l) => String(l.kind).startsWith("report_"))).toEqual([]);
  });

  // Under scripts/test-at-dates.mjs the shift adds to the runner's; without libfaketime (outside CI) there is no past to make.
  describe.skipIf(!hasFaketime && process.env.CI !== "true")("with a history made days ago", () => {
    it("a crash after Telegram took the picture, before the daemon heard back, never posts it twice; the reviewer is told once", async () => {
      const { zone, day } = noonZone();
      const env = { REVIEW_TIMEZONE: zone, TELEGRAM_RATE_SCALE: "20" };
      const dirs = await freshDirs();
      await historyDaysAgo(dirs, 2, env, ["Two days ago, first.", "Two days ago, second."]);
      // Telegram takes the picture at once and answers a minute later: the daemon dies in between.
      live.double.answerLate("sendPhoto", 60_000);
      await live.start({ ...env, REPORT_DAY: day }, { dirs });
      const photo = await eventually(() => live.double.photos(OWNER)[0], 20_000, "the weekly picture, taken by Telegram");
      expect(photo.caption).toBe(
        `Weekly report, ${nineOClock(zone, 7)} – ${nineOClock(zone, 0)}: 2 drafts, 0 sent, 0 sent back, 0 expired.`,
      );
      live.double.clearFaults();
      const second = await live.restart({ ...env, REPORT_DAY: day });
      await second.waitForLog((l) => String(l.msg).startsWith("the weekly report may not have reached the chat"), 20_000);
      await live.reviewChatMessage(
        0,
        /^The weekly report of .+ may be missing: .+It is not posted twice; \/report shows the last 7 days\.$/,
        "the notice",
      );
      expect(live.double.photos()).toHaveLength(1);
      const kinds = async () => (await auditLines(second.harnessDir)).map((l) => String(l.kind)).filter((k) => k.startsWith("report_"));
      await eventually(async () => (await kinds()).join() === "report_intent,report_unconfirmed", 10_000, "the report lines");

      // Another start the same day: nothing again, not even the notice.
      const third = await live.restart({ ...env, REPORT_DAY: day });
      await third.waitForLog((l) => l.msg === "the week's report is already posted", 20_000);
      expect(live.double.photos()).toHaveLength(1);
      expect(live.double.messages(OWNER).filter((m) => /may be missing/.test(m.text))).toHaveLength(1);
      expect(await kinds()).toEqual(["report_intent", "report_unconfirmed"]);
    }, 120_000);

    it("a REPORT_DAY missed by a daemon down for 8 days is posted once at the next start, for its own week; the next REPORT_DAY brings only its own", async () => {
      // REPORT_DAY was three days ago: the daemon, stopped eight days ago, missed it entirely.
      const { zone, day } = noonZone(3);
      const env = { REVIEW_TIMEZONE: zone, TELEGRAM_RATE_SCALE: "20", REPORT_DAY: day };
      const dirs = await freshDirs();
      await historyDaysAgo(dirs, 8, env, ["Eight days ago, first.", "Eight days ago, second."]);
      expect(live.double.photos()).toHaveLength(0);

      const back = await live.start(env, { dirs });
      const photo = await eventually(() => live.double.photos(OWNER)[0], 20_000, "the missed week's picture");
      expect(photo.caption).toBe(
        `Weekly report, ${nineOClock(zone, 10)} – ${nineOClock(zone, 3)}: 2 drafts, 0 sent, 0 sent back, 0 expired.`,
      );
      await back.waitForLog((l) => l.msg === "posted the weekly report", 10_000);

      // A restart the same day: it is out.
      const again = await live.restart(env);
      await again.waitForLog((l) => l.msg === "the week's report is already posted", 20_000);
      expect(live.double.photos()).toHaveLength(1);

      // A draft this week; the next start is on the next REPORT_DAY: that week's picture only, the missed one not again.
      await posted(again, "This week's only draft.", "CoS");
      expect(await again.stop("SIGTERM")).toBe(0);
      const next = await live.start({ ...env, ...shiftedClockEnv(4 * DAY) }, { dirs });
      const second = await eventually(() => live.double.photos(OWNER)[1], 20_000, "the next week's picture");
      expect(second.caption).toBe(
        `Weekly report, ${nineOClock(zone, 3)} – ${nineOClock(zone, -4)}: 1 draft, 0 sent, 0 sent back, 0 expired.`,
      );
      await next.waitForLog((l) => l.msg === "posted the weekly report", 10_000);
      expect(live.double.photos()).toHaveLength(2);
      const posted2 = (await auditLines(next.harnessDir)).filter((l) => l.kind === "report_posted").map((l) => [l.trigger, l.until]);
      expect(posted2).toHaveLength(2);
      expect(new Set(posted2.map(([, until]) => until)).size).toBe(2);
    }, 120_000);
  });
});
