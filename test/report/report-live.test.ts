import { describe, expect, it } from "vitest";
import { pngSize } from "../../src/report/render-png.js";
import { jsonLine, runBin } from "../support/cli-process.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, GROUP, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

/**
 * Issue 22 against the real daemon and the Bot API double: the report's
 * numbers from a history the daemon made, the weekly picture posted with
 * sendPhoto on REPORT_DAY once across restarts, and /report on demand.
 */

const live = useLiveDaemon();
type Rec = Record<string, any>;

/** A zone where it is now between 12:00 and 13:00, and its weekday: REPORT_DAY's 09:00 passed this morning there. */
function noonZone(): { zone: string; day: string } {
  const offset = 12 - new Date().getUTCHours();
  const zone = offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
  const day = new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short" }).format(new Date()).toLowerCase();
  return { zone, day };
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
  it("counts the daemon's history; posts the week's picture once across restarts; /report answers reviewers only", async () => {
    const { zone, day } = noonZone();
    const env = { UNDO_WINDOW: "0", TELEGRAM_RATE_SCALE: "20", REVIEW_TIMEZONE: zone };
    const d = await live.start(env);
    const a = await posted(d, "Weekly numbers are in.", "Scribe");
    const b = await posted(d, "Please review the plan.", "CoS");
    const c = await posted(d, "See you Thursday.", "Margot");
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id, userId: OWNER, newEmojis: ["👍"] });
    live.double.injectReaction({ chatId: OWNER, messageId: b.review_message_id, userId: OWNER, newEmojis: ["👎"] });
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
    expect(Object.keys(report).sort()).toEqual(["destinations", "roles", "since", "until"]);
    expect(report.roles.Scribe).toMatchObject({ drafts: 1, sent: 1, revise: 0, edited: 0, undone: 0 });
    expect(report.roles.CoS).toMatchObject({ drafts: 1, sent: 0, revise: 1 });
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

    // REPORT_DAY is today and 09:00 has passed: the start posts the week's picture.
    await live.restart({ ...env, REPORT_DAY: day });
    const photo = await eventually(() => live.double.photos(OWNER)[0], 20_000, "the weekly picture").catch((err) => {
      throw new Error(
        `${err}\n${live.daemon
          .rawStderr()
          .split("\n")
          .filter((l) => /report/i.test(l))
          .join("\n")}`,
      );
    });
    expect([...photo.file.data.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(pngSize(photo.file.data)).toEqual({ width: 1080, height: photo.height });
    expect(photo.height).toBeGreaterThan(800);
    expect(photo.height).toBeLessThan(2400);
    expect(photo.file.data.length).toBeGreaterThan(10_000);
    expect(photo.file.data.length).toBeLessThan(1_000_000);
    // The week ended at 09:00 this morning, before this history began.
    expect(photo.caption).toMatch(
      /^Weekly report, \w{3} \d+ \w{3} 09:00 – \w{3} \d+ \w{3} 09:00: 0 drafts, 0 sent, 0 sent back, 0 expired\.$/,
    );
    expect(photo.caption).not.toContain("\n");
    const postedLines = async () => (await auditLines(live.daemon.harnessDir)).filter((l) => l.kind === "report_posted");
    await eventually(async () => (await postedLines()).length === 1, 10_000, "report_posted audited");

    // Another restart the same day: the audit line says it is out; nothing is posted again.
    const again = await live.restart({ ...env, REPORT_DAY: day });
    await again.waitForLog((l) => l.msg === "the week's report is already posted", 20_000);
    expect(live.double.photos(OWNER)).toHaveLength(1);

    // /report: a stranger's is refused and audited; the reviewer's brings the picture.
    live.double.injectMessage({ chatId: STRANGER, userId: STRANGER, text: "/report" });
    await eventually(
      async () => (await auditLines(again.harnessDir)).some((l) => l.kind === "command_refused" && l.command === "report"),
      10_000,
      "the stranger's /report audited",
    );
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/report" });
    const second = await eventually(() => live.double.photos(OWNER)[1], 20_000, "the /report picture");
    expect(second.caption).toMatch(/^Report, .*: 3 drafts, 2 sent, 1 sent back, 0 expired\.$/);
    expect(live.double.photos()).toHaveLength(2);
    await eventually(async () => (await postedLines()).map((l) => l.trigger).join() === "schedule,command", 10_000, "/report audited");
  });
});
