import { readFileSync } from "node:fs";
import { parseCorpus, type CorpusEntry } from "./corpus.js";
import { findPii } from "./detect.js";
import { redact } from "./redact.js";
import { formatTable, scoreCorpus } from "./score.js";

/**
 * CLI: `node dist/redact/report.js <corpus.jsonl> [--misses]`. Prints the
 * redactor's per-category table on the labelled corpus and how long it takes
 * on a 4096-character draft (Telegram's message limit), so a change to a
 * detector shows its cost in both accuracy and speed.
 */

const DRAFT_CHARS = 4096;

function main(argv: readonly string[]): number {
  const path = argv[0];
  if (path === undefined) {
    process.stderr.write("usage: node dist/redact/report.js <corpus.jsonl> [--misses]\n");
    return 2;
  }
  const entries = parseCorpus(readFileSync(path, "utf8"));
  const score = scoreCorpus(entries, findPii);
  const negatives = entries.filter((e) => e.expect.length === 0);
  const changed = negatives.filter((e) => redact(e.text).text !== e.text).length;
  const groups = (g: CorpusEntry["group"]) => entries.filter((e) => e.group === g).length;
  const out: string[] = [
    `corpus: ${entries.length} entries (${groups("pii")} with PII, ${groups("hard-negative")} hard negatives, ${groups("plain")} plain)`,
    "",
    formatTable(score.rows),
    "",
    `PII-free entries changed: ${changed}/${negatives.length}`,
  ];
  if (argv.includes("--misses")) out.push(...score.misses);
  out.push("", ...timings(entries));
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}

/** Mean and worst time of `redact` on 4096-char drafts: one made of corpus messages, and a few adversarial ones. */
function timings(entries: readonly CorpusEntry[]): string[] {
  const mixed = entries
    .filter((_, i) => i % 3 === 0)
    .map((e) => e.text)
    .join("\n");
  const drafts: [string, string][] = [
    ["corpus messages (mixed)", fill(mixed)],
    ["all digits", fill("4")],
    ["digits and spaces", fill("1234 ")],
    ["colons and hex", fill("a:")],
    ["at signs", fill("a.b@")],
    ["dotted numbers", fill("1.")],
  ];
  return [`timing, ${DRAFT_CHARS}-char draft (mean / max of 2000 runs after 200 warm-up runs):`].concat(
    drafts.map(([name, draft]) => {
      const { mean, max } = time(() => redact(draft));
      return `  ${name.padEnd(26)} ${mean.toFixed(3)} ms / ${max.toFixed(3)} ms`;
    }),
  );
}

function fill(pattern: string): string {
  return pattern.repeat(Math.ceil(DRAFT_CHARS / pattern.length)).slice(0, DRAFT_CHARS);
}

function time(run: () => unknown): { mean: number; max: number } {
  for (let i = 0; i < 200; i++) run();
  let total = 0;
  let max = 0;
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    run();
    const ms = performance.now() - t0;
    total += ms;
    if (ms > max) max = ms;
  }
  return { mean: total / 2000, max };
}

process.exitCode = main(process.argv.slice(2));
