/**
 * Runs tests at other dates, with libfaketime (Debian package `faketime`):
 * the guard against fixtures that pass only on the day they were written.
 *
 *   node scripts/test-at-dates.mjs            the date-sensitive files, at the last minute of a month a year ahead
 *   node scripts/test-at-dates.mjs --all      the whole suite at each of the dates below
 *   node scripts/test-at-dates.mjs --all --only dst    one of them (month-end, dst, year-ahead)
 *
 * The clock is shifted by an offset (`faketime -f +Ns`), not set to a start
 * time: every process the tests start (vitest's workers, daemons, CLI calls)
 * then shares one calendar, and time runs on as usual. The test helpers pass
 * libfaketime's variables and TZ on to the processes they start with a clean
 * environment (test/support/clock-env.ts).
 *
 * Without `faketime` on the machine this says so and exits 0, except under CI
 * (CI=true), where .ci/run installs it and its absence is a failure.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DAY = 86_400_000;

/** The files whose fixtures are read by a process on the real clock, or that name months and days. */
const DATE_SENSITIVE = [
  "test/reliability/archive-kill.test.ts",
  "test/reliability/damaged-store.test.ts",
  "test/reliability/archived-post.test.ts",
  "test/cli/offline.test.ts",
  "test/cli/cli.test.ts",
  "test/desk/archiving.test.ts",
  "test/owner",
  "test/clock/local-when.test.ts",
  "test/clock/week.test.ts",
  "test/test-mode",
  "test/report",
  "test/business",
];

/** The first instant of the month after the one `ms` falls in (UTC). */
function nextMonth(ms) {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The next night Europe/Berlin changes to or from summer time (01:00 UTC on the last Sunday of March or October). */
function nextBerlinChange(ms) {
  const lastSunday = (year, month) => {
    const end = new Date(Date.UTC(year, month + 1, 0, 1));
    return end.getTime() - end.getUTCDay() * DAY;
  };
  const year = new Date(ms).getUTCFullYear();
  const candidates = [year, year + 1].flatMap((y) => [lastSunday(y, 2), lastSunday(y, 9)]);
  return candidates.find((t) => t > ms + DAY);
}

/** Where each run starts: a run takes minutes, so the change it is about happens while it runs. */
function dates(now) {
  const aYearAhead = now + 365 * DAY;
  return {
    // 30 s before midnight UTC at the end of this month: the month, the day and the year roll over mid-run.
    "month-end": { at: nextMonth(now) - 30_000, tz: "UTC" },
    // 30 s before Europe/Berlin's clocks jump, with REVIEW_TIMEZONE (by default the system zone) on Berlin.
    dst: { at: nextBerlinChange(now) - 30_000, tz: "Europe/Berlin" },
    "year-ahead": { at: aYearAhead, tz: "UTC" },
    // The CI guard: a month's last minute, a year ahead.
    guard: { at: nextMonth(aYearAhead) - 30_000, tz: "UTC" },
  };
}

function hasFaketime() {
  return spawnSync("faketime", ["--version"], { stdio: "ignore" }).status === 0;
}

function runAt(name, { at, tz }, files) {
  const offsetSeconds = Math.round((at - Date.now()) / 1000);
  const shift = `${offsetSeconds >= 0 ? "+" : ""}${offsetSeconds}s`;
  console.log(`\n[test-at-dates] ${name}: the clock reads ${new Date(at).toISOString()} (TZ=${tz}, faketime ${shift})`);
  const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
  const r = spawnSync("faketime", ["-f", shift, process.execPath, vitest, "run", ...files], {
    cwd: ROOT,
    stdio: "inherit",
    // The monotonic clock moves by the same offset, so intervals keep their length. (Left alone, it
    // makes Python's time.sleep fail with EINVAL under libfaketime 0.9.10.)
    env: { ...process.env, TZ: tz },
  });
  return r.status === 0;
}

const args = process.argv.slice(2);
const all = args.includes("--all");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;

if (!hasFaketime()) {
  const message = "[test-at-dates] faketime is not installed (Debian: apt-get install faketime): the tests at other dates did not run.";
  if (process.env.CI === "true") {
    console.error(`${message} CI needs them.`);
    process.exit(1);
  }
  console.log(message);
  process.exit(0);
}

const table = dates(Date.now());
const chosen = all ? Object.entries(table).filter(([n]) => n !== "guard" && (only === undefined || n === only)) : [["guard", table.guard]];
const failed = chosen.filter(([name, when]) => !runAt(name, when, all ? [] : DATE_SENSITIVE)).map(([name]) => name);
if (failed.length > 0) {
  console.error(`[test-at-dates] failed at: ${failed.join(", ")}`);
  process.exit(1);
}
console.log(`[test-at-dates] passed at: ${chosen.map(([n, w]) => `${n} (${new Date(w.at).toISOString()})`).join(", ")}`);
