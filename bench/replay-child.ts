/**
 * One replay of a store file, alone in its process: `node replay-child.js <mode> <path>`.
 * Prints one JSON line: seconds, drafts, lines, peak RSS.
 *   store  JsonlStore.open with the draft schema: what the daemon does at start.
 *   naive  plain JSON.parse of every line, keeping the last record per draft_id.
 *   unvalidated  the store's replay() with no schema parse (what validation costs).
 *   scan   readLines + checkLine on every line (the store's first pass: I/O and CRC).
 *   read   readLines alone (I/O and line splitting).
 */
import { open } from "node:fs/promises";
import { draftRecordSchema } from "../src/drafts/record.js";
import { JsonlStore } from "../src/store/jsonl-store.js";
import { checkLine } from "../src/store/line-codec.js";
import { readLines } from "../src/store/line-reader.js";
import { replay } from "../src/store/replay.js";

type Result = { drafts: number; lines: number };

async function store(path: string): Promise<Result> {
  const log = { warn() {}, info() {} };
  const s = await JsonlStore.open({ path, parse: (v) => draftRecordSchema.parse(v), log });
  const result = { drafts: s.latest.size, lines: s.lineCount };
  await s.close();
  return result;
}

/** The store's two-pass replay without the schema validation: what zod costs. */
async function unvalidated(path: string): Promise<Result> {
  const fh = await open(path, "r");
  try {
    const r = await replay(fh, path, (v) => v as { draft_id: string });
    return { drafts: r.latest.size, lines: r.lines };
  } finally {
    await fh.close();
  }
}

async function naive(path: string): Promise<Result> {
  const fh = await open(path, "r");
  const latest = new Map<string, unknown>();
  let lines = 0;
  let rest = "";
  const buf = Buffer.allocUnsafe(4 << 20);
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const text = rest + buf.toString("utf8", 0, bytesRead);
      const parts = text.split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        const record = JSON.parse(line) as { draft_id: string };
        latest.set(record.draft_id, record);
        lines++;
      }
    }
  } finally {
    await fh.close();
  }
  return { drafts: latest.size, lines };
}

async function scan(path: string, check: boolean): Promise<Result> {
  const fh = await open(path, "r");
  let bad = 0;
  try {
    const read = await readLines(fh, (b, start, end) => {
      if (check && checkLine(b, start, end) !== null) bad++;
    });
    if (bad > 0) throw new Error(`${bad} lines failed their checksum`);
    return { drafts: 0, lines: read.lines };
  } finally {
    await fh.close();
  }
}

const [mode, path] = process.argv.slice(2);
if (!path) throw new Error("usage: replay-child.js store|naive|scan|read <path>");
const started = performance.now();
const result =
  mode === "store"
    ? await store(path)
    : mode === "unvalidated"
      ? await unvalidated(path)
      : mode === "naive"
        ? await naive(path)
        : await scan(path, mode === "scan");
const seconds = (performance.now() - started) / 1000;
const maxRssMB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ mode, seconds, ...result, maxRssMB })}\n`);
