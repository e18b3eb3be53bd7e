/**
 * `npm run bench [-- section...]`: measures the daemon against Telegram's
 * limits (the Bot API double enforcing them) and the disk, and prints ONE
 * table, every figure from this run, each beside its target. Sections:
 * drain, latency, intake, replay, memory, history, start, soak, undo, day (bot
 * messages per draft over a scripted day), channels (Linear, email and Slack:
 * drains against their limits, decision -> call; about 3 minutes)
 * (default: all but soak and channels; `npm run bench -- soak` runs the
 * 30-day soak, `npm run bench -- channels` the channels). Not part of the test
 * suite. About 3-4 minutes on 2 cores; needs 4 GiB free in the temp dir
 * for the replay (skipped otherwise).
 */
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from "node:os";
import { drainCleanups } from "./drain.js";
import { drainSection, intakeSection, latencySection, memorySection, replaySection } from "./sections.js";
import { historySection } from "./history.js";
import { soakSection } from "./soak.js";
import { startSection } from "./start.js";
import { undoVisibleSection } from "./undo-visible.js";
import { reviewDaySection } from "./review-day.js";
import { channelsSection } from "./channels.js";
import { renderTable, skipped, type Row } from "./table.js";

const SECTIONS: Record<string, { order: number; run: () => Promise<Row[]> }> = {
  drain: { order: 1, run: drainSection },
  latency: { order: 2, run: latencySection },
  intake: { order: 3, run: intakeSection },
  memory: { order: 5, run: memorySection },
  replay: { order: 4, run: replaySection },
  history: { order: 6, run: historySection },
  soak: { order: 7, run: soakSection },
  start: { order: 8, run: startSection },
  undo: { order: 9, run: undoVisibleSection },
  day: { order: 10, run: reviewDaySection },
  channels: { order: 11, run: channelsSection },
};

/** Sections run only when named: the 30-day soak, and the channels' real-time drains (about 3 minutes). */
const OPT_IN = new Set(["soak", "channels"]);

function header(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const npm = process.env.npm_lifecycle_event === "bench" ? "npm run bench" : "";
  return [
    `command:  ${[npm, `(${process.execPath} ${process.argv.slice(1).join(" ")})`].filter(Boolean).join(" ")}`,
    `machine:  ${cpu.length} x ${cpu[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} free), ${process.platform} ${release()}`,
    `node:     ${process.version}; temp dir ${tmpdir()}; load average at start ${load}`,
  ].join("\n");
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !(w in SECTIONS));
  if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(", ")}; choose from ${Object.keys(SECTIONS).join(", ")}`);
  const names = wanted.length > 0 ? wanted : Object.keys(SECTIONS).filter((name) => !OPT_IN.has(name));
  process.stdout.write(`${header()}\n`);
  const started = performance.now();
  const results: Array<{ order: number; rows: Row[] }> = [];
  // The disk-heavy replay runs last, so its 1 GB of writes does not disturb the timing of the others.
  for (const name of names) {
    const section = SECTIONS[name]!;
    process.stderr.write(`bench: ${name}...\n`);
    try {
      results.push({ order: section.order, rows: await section.run() });
    } catch (err) {
      results.push({
        order: section.order,
        rows: [skipped(String(section.order), name, `failed: ${(err as Error).message.split("\n")[0]}`)],
      });
    }
  }
  const rows = results.sort((a, b) => a.order - b.order).flatMap((r) => r.rows);
  process.stdout.write(`\n${renderTable(rows)}\n\n`);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  process.stdout.write(
    `took ${((performance.now() - started) / 1000).toFixed(0)} s; load average at end ${load} (other processes on this machine share its 2 cores and disk)\n`,
  );
  await drainCleanups(30_000);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
