/**
 * Draws the README's picture of a week's report (docs/weekly-report.png) from
 * a week the daemon really went through, not from made-up numbers:
 *
 *     npm run build && node scripts/report-picture.mjs docs/weekly-report.png
 *
 * It starts `node dist/main.js` in test mode (TAO_DRAFT_REVIEW_TEST=1) on a
 * fresh HARNESS_DIR in a temporary directory, with REVIEW_TIMEZONE
 * Europe/Berlin and the default DRAFT_TTL (24h), DEFER_FOR (24h) and
 * UNDO_WINDOW (10s). It moves the simulated clock to the next Monday 09:00
 * (as REPORT_DAY=mon would have it), then plays two fixed weeks on stdin: the
 * week before (BEFORE, 27 drafts), then the week the picture shows (WEEK, 41
 * drafts from Scribe, CoS and Margot), each draft decided or not as the lists
 * say (👍, 👎, a reply with a revision note, 😴, a ✏️ edit before the 👍, a 🔓
 * tap that keeps a redacted phone number, a 👍
 * taken back within the undo window, drafts left to expire, two still waiting
 * at the end), moving the clock between them with `advance`. At the Monday
 * 09:00 after the second week it stops the daemon and reads that week (and
 * the one before, for the comparison) back with the code the daemon posts its
 * weekly picture with (dist/lib/report: readPeriod over the same files,
 * counting test mode's drafts, then reportSvg and svgToPng), and writes the PNG.
 *
 * The sequence is fixed, so the numbers are the same at every run; the dates
 * are those of the week after the run (test mode's clock starts at the real
 * now). Not part of `npm test`. Nothing outside the temporary directory and
 * the output file is touched; the temporary directory is removed at the end.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const ZONE = "Europe/Berlin";
const MINUTE = 60_000;

// The report's labels are local times of the process's zone, as in the daemon (REVIEW_TIMEZONE sets TZ there).
process.env.TZ = ZONE;

/** Destinations: the team's group, the community channel, two people. */
const TEAM = "-1001234567890";
const NEWS = "-1009876543210";
const ANNA = "5550001";
const BEN = "5550002";

/**
 * The week: per draft, [day (0 = Monday), local time, role, destination, text, ...steps].
 * A step is [minutes after the previous one (the first: after the post), action]; the
 * actions are "👍", "👎", "😴", "unreact" (the 👍 taken back), "keep" (🔓 Keep the
 * removed items: redaction took a phone number out), ["edit", text] and ["note", text]
 * (a reply: sent back with that revision note).
 * A draft with no decision that stands expires after DRAFT_TTL (24h, plus 24h per 😴).
 */
const WEEK = [
  [0, "09:05", "CoS", TEAM, "Weekly priorities are in the doc; please add yours by noon.", [4, "👍"]],
  [0, "09:40", "Scribe", NEWS, "New this week: drafts can be edited before they are sent.", [25, "👍"]],
  [
    0,
    "10:15",
    "Margot",
    ANNA,
    "Hi Anna, could we move Thursday's call to 15:00?",
    [50, ["edit", "Hi Anna, could we move Thursday's call to 15:30?"]],
    [2, "👍"],
  ],
  [0, "11:30", "Scribe", TEAM, "Reminder: the release freeze starts Wednesday evening.", [8, "👍"]],
  [0, "13:20", "CoS", BEN, "Ben, the invoice for November is attached in the thread.", [35, ["note", "Attach it here, not in the thread."]]],
  [0, "14:00", "Scribe", NEWS, "Thanks to everyone who joined yesterday's meetup!", [12, "👍"]],
  [
    0,
    "16:45",
    "Margot",
    TEAM,
    "Proposal: we drop the Friday stand-up in December.",
    [95, "😴"],
    [1200, ["note", "Ask the team first; a proposal from me reads like a decision."]],
  ],
  [0, "17:30", "CoS", ANNA, "Anna, your travel for the 15th is booked.", [6, "👍"]],
  [1, "08:50", "Scribe", TEAM, "Morning! The build is green again.", [15, "👍"]],
  [1, "09:30", "CoS", TEAM, "Agenda for Wednesday's planning is up.", [9, "👍"]],
  [1, "10:10", "Margot", BEN, "Ben, happy to introduce you to the design team.", [140, "👍"]],
  [
    1,
    "11:00",
    "Scribe",
    NEWS,
    "Tip: react 😴 to look at a draft tomorrow.",
    [30, ["edit", "Tip: react 😴 to decide on a draft tomorrow."]],
    [1, "👍"],
  ],
  [
    1,
    "13:40",
    "CoS",
    BEN,
    "Ben, can you confirm the contract dates?",
    [20, "👍"],
    [0, "unreact"],
    [3, ["edit", "Ben, could you confirm the contract dates by Friday?"]],
    [1, "👍"],
  ],
  [1, "15:15", "Scribe", TEAM, "Who can review the onboarding doc today?", [5, "👍"]],
  [1, "19:30", "Margot", NEWS, "Our year in review is coming next week."],
  [2, "09:10", "Scribe", NEWS, "Maintenance window tonight 22:00-23:00.", [7, "👍"]],
  [2, "09:45", "CoS", TEAM, "Budget review moved to Thursday 11:00.", [14, "👍"]],
  [2, "10:30", "Scribe", TEAM, "Please update your tickets before the freeze.", [45, ["note", "Say which date the freeze starts."]]],
  [2, "12:00", "Margot", ANNA, "Anna, lunch on Friday?", [180, ["edit", "Anna, lunch on Friday at 12:30?"]], [5, "👍"]],
  [2, "14:20", "CoS", ANNA, "Anna, the hotel offers a late check-out.", [11, "👍"]],
  [2, "15:10", "Margot", ANNA, "Anna, if the train is late, call me on +49 151 2345 6789.", [12, "keep"], [3, "👍"]],
  [2, "16:00", "Scribe", NEWS, "The freeze has started; thanks for the quick merges.", [18, "👍"]],
  [2, "18:10", "CoS", TEAM, "Draft agenda for the offsite attached.", [16 * 60, "👍"]],
  [3, "09:20", "Scribe", TEAM, "Stand-up notes are in the channel.", [10, "👍"]],
  [3, "10:00", "CoS", BEN, "Ben, the signed contract is back.", [22, "👍"]],
  [3, "11:15", "Margot", TEAM, "Could we try a shorter retro format?", [70, ["note", "Too vague: propose the format itself."]]],
  [
    3,
    "13:00",
    "Scribe",
    NEWS,
    "Hiring: we are looking for a frontend engineer.",
    [40, ["edit", "We are hiring a frontend engineer (remote, EU)."]],
    [2, "👍"],
  ],
  [3, "15:30", "CoS", TEAM, "Offsite RSVPs close on Monday.", [8, "👍"]],
  [3, "17:00", "Scribe", TEAM, "Friday's demo slots are open."],
  [4, "09:00", "Scribe", TEAM, "Demo order for today is set.", [6, "👍"]],
  [4, "10:30", "CoS", ANNA, "Anna, the quarterly numbers are ready for you.", [13, "👍"]],
  [4, "11:45", "Margot", BEN, "Ben, thanks for the great session yesterday!", [240, "😴"]],
  [4, "14:10", "Scribe", NEWS, "Weekend reading: how we review outgoing messages.", [28, "👍"]],
  [4, "16:20", "CoS", TEAM, "Reminder: timesheets are due today.", [3, "👍"]],
  [4, "17:50", "Scribe", TEAM, "Have a good weekend, everyone!", [9, "👍"], [0, "unreact"], [1, "👎"]],
  [5, "11:00", "Scribe", NEWS, "Saturday meetup photos are up.", [90, "👍"]],
  [5, "15:00", "CoS", BEN, "Ben, Monday's call is confirmed for 10:00."],
  [6, "10:30", "Margot", TEAM, "Idea for next week: a shared reading list.", [300, "👍"]],
  [6, "18:00", "Scribe", NEWS, "This week's changelog is ready.", [55, "👍"]],
  [6, "21:15", "CoS", TEAM, "Monday: offsite planning at 10:00."],
  [7, "08:20", "Margot", ANNA, "Anna, the slides for Tuesday are in the shared folder."],
];

/** The week before WEEK, in the same form: fewer drafts sent as drafted, more sent back. */
const BEFORE = [
  [0, "09:10", "CoS", TEAM, "Priorities for the week are in the doc.", [6, "👍"]],
  [0, "10:00", "Scribe", NEWS, "We are changing how drafts are reviewed.", [20, ["edit", "Drafts are now reviewed before they are sent."]], [2, "👍"]],
  [0, "11:30", "Margot", ANNA, "Anna, could we meet on Thursday?", [90, ["note", "Name a time, and offer two."]]],
  [0, "14:00", "Scribe", TEAM, "The build is red, please look.", [10, ["note", "Say which build, and who is on it."]]],
  [0, "16:00", "CoS", BEN, "Ben, your invoice is late.", [25, ["note", "Friendlier, please: he is a new client."]]],
  [1, "09:20", "Scribe", TEAM, "Stand-up moves to 09:30.", [4, "👍"]],
  [1, "10:15", "CoS", TEAM, "Budget numbers are due Friday.", [12, "👍"]],
  [1, "11:40", "Margot", BEN, "Ben, thanks for the intro!", [300, "👍"]],
  [1, "13:10", "Scribe", NEWS, "Meetup next Thursday, sign up now!!", [30, ["edit", "Meetup next Thursday: sign up in the channel."]], [2, "👍"]],
  [1, "15:45", "CoS", ANNA, "Anna, the flights are booked.", [8, "👍"]],
  [2, "09:05", "Scribe", TEAM, "Code freeze in two weeks.", [15, "👍"]],
  [2, "10:30", "Margot", TEAM, "We should stop doing retros.", [120, ["note", "Not as a post to the whole team."]]],
  [2, "12:00", "CoS", TEAM, "Offsite venue options attached.", [40, ["edit", "Two offsite venue options are attached; vote by Friday."]], [3, "👍"]],
  [2, "14:30", "Scribe", NEWS, "Our blog has a new home.", [22, "👍"]],
  [2, "17:00", "CoS", BEN, "Ben, Monday works.", [18, "👍"]],
  [3, "09:40", "Scribe", TEAM, "Reminder: demo on Friday.", [7, "👍"]],
  [3, "11:00", "Margot", ANNA, "Anna, lunch next week?"],
  [3, "13:30", "CoS", TEAM, "Timesheets are due.", [5, "👍"]],
  [3, "15:00", "Scribe", NEWS, "Release notes for 2.3 are out.", [35, ["edit", "The release notes for 2.3 are out."]], [1, "👍"]],
  [4, "09:15", "CoS", ANNA, "Anna, the report is ready.", [14, "👍"]],
  [4, "10:45", "Scribe", TEAM, "Who is on call this weekend?", [9, "👍"]],
  [4, "12:20", "Margot", TEAM, "Friday drinks at 17:00?", [60, "👍"]],
  [4, "15:30", "Scribe", NEWS, "Have a good weekend!", [11, ["note", "We never post this; skip it."]]],
  [4, "16:40", "CoS", TEAM, "Next week's agenda is up.", [20, "👍"]],
  [5, "10:00", "Scribe", NEWS, "Weekend reading list.", [240, "👍"]],
  [6, "11:00", "CoS", BEN, "Ben, see you Monday.", [95, "👍"]],
  [6, "19:00", "Scribe", TEAM, "Monday: planning at 10:00.", [45, "👍"]],
];

/** The compiled report modules (npm run build), the ones the daemon's weekly picture is drawn with. */
async function reportModules() {
  const lib = join(ROOT, "dist/lib/report");
  if (!existsSync(join(ROOT, "dist/main.js")) || !existsSync(join(lib, "read-period.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first");
  }
  const load = (name) => import(new URL(`file://${join(lib, name)}`).href);
  const [period, chart, png, week, audit] = await Promise.all([
    load("read-period.js"),
    load("chart-svg.js"),
    load("render-png.js"),
    load("week.js"),
    import(new URL(`file://${join(ROOT, "dist/lib/audit/verify-chain.js")}`).href),
  ]);
  return { ...period, ...chart, ...png, ...week, source: audit.DEFAULT_AUDIT_SOURCE };
}

/** A test-mode daemon: one JSON line in, one answer out; an answer with `error` stops the script. */
function startDaemon(cwd, harnessDir) {
  const child = spawn(process.execPath, [join(ROOT, "dist/main.js")], {
    cwd,
    env: { PATH: process.env.PATH ?? "", TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: harnessDir, REVIEW_TIMEZONE: ZONE, LOG_LEVEL: "warn" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = [];
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(JSON.parse(line)));
  const exited = new Promise((done) => child.on("exit", (code) => done(code)));
  return {
    send(command) {
      return new Promise((answered, failed) => {
        waiting.push((answer) => (answer.error ? failed(new Error(`${JSON.stringify(command)}: ${answer.error}`)) : answered(answer)));
        child.stdin.write(`${JSON.stringify(command)}\n`);
      });
    },
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the test-mode daemon exited with ${code}`);
    },
  };
}

/** `day` local days after `startMs` (a Monday 09:00), at `hhmm` local time. */
function localTime(startMs, day, hhmm) {
  const d = new Date(startMs);
  const [h, m] = hhmm.split(":").map(Number);
  d.setDate(d.getDate() + day);
  d.setHours(h, m, 0, 0);
  return d.getTime();
}

/** A week's drafts as events in time order: [at (ms), order, draft key, action]; a submit first for each draft. */
function eventsOf(week, startMs, prefix) {
  const events = [];
  week.forEach(([day, hhmm, role, destination, text, ...steps], n) => {
    const i = `${prefix}${n + 1}`;
    let at = localTime(startMs, day, hhmm);
    const payload = {
      draft_text: text,
      destination_chat_id: destination,
      destination_thread_id: null,
      drafted_by_role: role,
      originating_intent_id: `intent-${i}`,
    };
    events.push([at, events.length, i, { submit: payload }]);
    for (const [minutes, action] of steps) events.push([(at += minutes * MINUTE), events.length, i, action]);
  });
  return events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** One reviewer action on a draft's current review post (an edit or a 😴 keeps the draft, the post may change). */
async function act(daemon, draftId, action) {
  const { review_message_id } = await daemon.send({ cmd: "get", draft_id: draftId });
  if (Array.isArray(action) && action[0] === "note") return daemon.send({ cmd: "reply", review_message_id, text: action[1] });
  if (Array.isArray(action)) return daemon.send({ cmd: "edit", review_message_id, text: action[1] });
  if (action === "unreact") return daemon.send({ cmd: "unreact", review_message_id, emoji: "👍" });
  if (action === "keep") return daemon.send({ cmd: "keep", review_message_id });
  return daemon.send({ cmd: "react", review_message_id, emoji: action });
}

/** Plays BEFORE from the next Monday 09:00, then WEEK from the Monday after; returns WEEK's period. */
async function playWeeks(daemon, m) {
  const { now } = await daemon.send({ cmd: "advance", by: "1ms" });
  let clock = Date.parse(now);
  const advanceTo = async (at) => {
    if (at > clock) clock = Date.parse((await daemon.send({ cmd: "advance", by: `${at - clock}ms` })).now);
  };
  const beforeMs = m.nextDue(clock, "mon");
  const sinceMs = m.nextDue(beforeMs, "mon");
  const untilMs = m.nextDue(sinceMs, "mon");
  const ids = new Map();
  const events = [...eventsOf(BEFORE, beforeMs, "b"), ...eventsOf(WEEK, sinceMs, "w")].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [at, , key, action] of events) {
    await advanceTo(at);
    if (action.submit) ids.set(key, (await daemon.send(action.submit)).draft_id);
    else await act(daemon, ids.get(key), action);
  }
  await advanceTo(untilMs);
  return { sinceMs, untilMs };
}

async function main() {
  const out = process.argv[2];
  if (!out) throw new Error("usage: node scripts/report-picture.mjs <out.png>");
  const m = await reportModules();
  const cwd = await mkdtemp(join(tmpdir(), "report-picture-"));
  try {
    const harnessDir = join(cwd, ".harness");
    const daemon = startDaemon(cwd, harnessDir);
    const period = await playWeeks(daemon, m);
    await daemon.stop();
    const files = {
      audit: join(harnessDir, "swarm.jsonl"),
      drafts: join(harnessDir, "telegram_drafts.jsonl"),
      archive: join(harnessDir, "archive"),
      source: m.source,
    };
    const data = await m.readPeriod(files, period, period.untilMs, true);
    const png = await m.svgToPng(m.reportSvg(data.report));
    await writeFile(resolve(out), png);
    const size = m.pngSize(png);
    process.stdout.write(`${out}: ${size.width}x${size.height}, ${png.length} bytes\n${JSON.stringify(data.report)}\n`);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

await main();
