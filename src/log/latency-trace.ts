import { appendFileSync } from "node:fs";

/**
 * An opt-in trace of the reaction → sendMessage path, for `npm run bench -- latency`:
 * with LATENCY_TRACE=<file> each named step appends `step<TAB>epoch ms` (sub-millisecond)
 * to that file, synchronously; without it a call is one comparison. Never on in production.
 */
const file = process.env.LATENCY_TRACE;

/** Marks that the path reached `step` now. */
export function traceStep(step: string): void {
  if (file === undefined || file === "") return;
  appendFileSync(file, `${step}\t${(performance.timeOrigin + performance.now()).toFixed(3)}\n`);
}
