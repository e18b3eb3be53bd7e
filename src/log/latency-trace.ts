import { appendFileSync } from "node:fs";

/**
 * An opt-in trace of the reaction → sendMessage path, for `npm run bench -- latency`:
 * with LATENCY_TRACE=<file> each named step is noted as `step<TAB>epoch ms` (sub-millisecond)
 * in memory and appended to that file when the process exits (or every 10,000 steps), so the
 * trace costs the path it measures a string, not a file system call; without it a call is one
 * comparison. Never on in production.
 */
const file = process.env.LATENCY_TRACE;
const noted: string[] = [];

function flush(): void {
  if (noted.length === 0 || file === undefined) return;
  appendFileSync(file, noted.join(""));
  noted.length = 0;
}

if (file !== undefined && file !== "") process.once("exit", flush);

/** Marks that the path reached `step` now. */
export function traceStep(step: string): void {
  if (file === undefined || file === "") return;
  noted.push(`${step}\t${(performance.timeOrigin + performance.now()).toFixed(3)}\n`);
  if (noted.length >= 10_000) flush();
}
