/**
 * 8. Start (issue 20, point 9): `TAO_DRAFT_REVIEW_TEST=1 npm start` on this
 * installed checkout, from the spawn to its first answer line on stdout, with
 * one payload on stdin. dist/ is built already (`npm run bench` builds first),
 * so this measures npm, the staleness check and the daemon's own start.
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { fixed, quantile, tempDir } from "./support.js";
import { judged, type Row } from "./table.js";

const ROOT = resolve(import.meta.dirname, "../..");
const RUNS = 5;

/** Milliseconds from spawning `npm start` to its first stdout line. */
function firstLineMs(harnessDir: string): Promise<number> {
  return new Promise((res, rej) => {
    const started = performance.now();
    const child = spawn("npm", ["start", "--silent"], {
      cwd: ROOT,
      env: { ...process.env, TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: harnessDir },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    let at = Number.NaN;
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      if (Number.isNaN(at) && out.includes("\n")) at = performance.now() - started;
    });
    child.on("error", rej);
    child.on("exit", () => (Number.isNaN(at) ? rej(new Error(`npm start printed no line: ${out}`)) : res(at)));
    const draft = { draft_text: "Hello", destination_chat_id: "-100123", drafted_by_role: "Scribe", originating_intent_id: "bench" };
    child.stdin.end(`${JSON.stringify(draft)}\n`);
  });
}

/** The row: median and worst of RUNS starts against the 1.5 s target. */
export async function startSection(): Promise<Row[]> {
  const { dir, remove } = await tempDir("bench-start-");
  const ms: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) ms.push(await firstLineMs(join(dir, `h${i}`)));
  } finally {
    await remove();
  }
  const p50 = quantile(ms, 0.5);
  const figure = `p50 ${fixed(p50 / 1000, 2)} s, max ${fixed(Math.max(...ms) / 1000, 2)} s (n=${RUNS})`;
  return [judged("8", "TAO_DRAFT_REVIEW_TEST=1 npm start: first answer line", figure, "≤ 1.5 s", p50 <= 1500)];
}
