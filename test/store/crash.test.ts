import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { JsonlStore } from "../../src/store/jsonl-store.js";
import { crashRecordText } from "./crash-record.mjs";
import { memoryLog, tempDir } from "./helpers.js";

/**
 * SIGKILLs a child that appends (and compacts) at many different moments and
 * checks after each kill that the store loads and holds every acknowledged
 * record at its latest acknowledged version or newer. CRASH_ITERATIONS sets
 * the number of kill points (default 120), spread over a few lanes (files).
 */
const ITERATIONS = Number(process.env.CRASH_ITERATIONS ?? 120);
const LANES = 3;
const COMPACT_AFTER_LINES = 64;
const here = fileURLToPath(new URL(".", import.meta.url));
const child = join(here, "crash-child.mjs");
let storeModule = "";

interface Record_ {
  draft_id: string;
  version: number;
  text: string;
}

const parse = (v: unknown): Record_ => {
  const r = v as Record_;
  if (typeof r?.draft_id !== "string" || !Number.isInteger(r.version) || r.text !== crashRecordText(r.draft_id, r.version)) {
    throw new Error(`unexpected record ${JSON.stringify(v).slice(0, 200)}`);
  }
  return r;
};

/** Compiles src/store to plain JS for the child, independent of dist/ and of other folders' compile state. */
async function transpileStore(): Promise<string> {
  const src = join(here, "../../src/store");
  const out = join(await tempDir(), "store-js");
  await mkdir(out, { recursive: true });
  await writeFile(join(out, "package.json"), '{"type":"module"}');
  for (const file of (await readdir(src)).filter((f) => f.endsWith(".ts"))) {
    const { outputText } = ts.transpileModule(await readFile(join(src, file), "utf8"), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(out, file.replace(/\.ts$/, ".js")), outputText);
  }
  return pathToFileURL(join(out, "jsonl-store.js")).href;
}

interface KillOutcome {
  acks: Array<[string, number]>;
  stderr: string;
}

/** Runs the child once and SIGKILLs it `delayMs` after it is ready (or after spawn, when `fromSpawn`). */
function runAndKill(path: string, delayMs: number, fromSpawn: boolean): Promise<KillOutcome> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, storeModule, path, String(COMPACT_AFTER_LINES)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let stderr = "";
    let armed = false;
    const arm = () => {
      armed = true;
      setTimeout(() => p.kill("SIGKILL"), delayMs);
    };
    if (fromSpawn) arm();
    p.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (!armed && out.includes("ready")) arm();
    });
    p.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    p.on("error", reject);
    p.on("close", (code, signal) => {
      if (signal !== "SIGKILL") return reject(new Error(`child exited by itself (code ${code}): ${stderr}`));
      const complete = out.slice(0, out.lastIndexOf("\n") + 1).split("\n");
      const acks = complete
        .filter((l) => l.startsWith("ack "))
        .map((l) => l.split(" "))
        .map(([, id, v]) => [id!, Number(v)] as [string, number]);
      resolve({ acks, stderr });
    });
  });
}

interface LaneStats {
  kills: number;
  acked: number;
  failures: string[];
  tornTails: number;
  interruptedCompactions: number;
}

async function lane(iterations: number): Promise<LaneStats> {
  const path = join(await tempDir(), "telegram_drafts.jsonl");
  const acked = new Map<string, number>();
  const stats: LaneStats = { kills: 0, acked: 0, failures: [], tornTails: 0, interruptedCompactions: 0 };
  for (let i = 0; i < iterations; i++) {
    const fromSpawn = i % 6 === 0; // some kills land during start-up, replay or recovery
    const delay = fromSpawn ? Math.random() * 150 : Math.random() * 120;
    const { acks } = await runAndKill(path, delay, fromSpawn);
    stats.kills++;
    stats.acked += acks.length;
    for (const [id, v] of acks) acked.set(id, Math.max(acked.get(id) ?? 0, v));
    const log = memoryLog();
    try {
      const store = await JsonlStore.open({ path, parse, log, compactAfterLines: COMPACT_AFTER_LINES });
      for (const [id, v] of acked) {
        const got = store.latest.get(id)?.version ?? 0;
        if (got < v) stats.failures.push(`kill ${i}: ${id} acknowledged v${v}, store has v${got}`);
      }
      await store.close();
    } catch (err) {
      stats.failures.push(`kill ${i}: store did not load: ${(err as Error).message}`);
    }
    if (log.warns.some((w) => typeof w.obj.droppedBytes === "number")) stats.tornTails++;
    if (log.infos.some((w) => /interrupted compaction/.test(w.msg))) stats.interruptedCompactions++;
  }
  return stats;
}

describe("JsonlStore under SIGKILL", () => {
  beforeAll(async () => {
    storeModule = await transpileStore();
  });

  it(
    "loads after every kill and keeps every acknowledged record",
    async () => {
      const started = Date.now();
      const per = Math.ceil(ITERATIONS / LANES);
      const lanes = await Promise.all(Array.from({ length: LANES }, () => lane(per)));
      const total = lanes.reduce(
        (a, s) => ({
          kills: a.kills + s.kills,
          acked: a.acked + s.acked,
          failures: [...a.failures, ...s.failures],
          tornTails: a.tornTails + s.tornTails,
          interruptedCompactions: a.interruptedCompactions + s.interruptedCompactions,
        }),
        { kills: 0, acked: 0, failures: [] as string[], tornTails: 0, interruptedCompactions: 0 },
      );
      const { failures, ...figures } = total;
      console.info(`crash test: ${JSON.stringify({ ...figures, failures: failures.length, seconds: (Date.now() - started) / 1000 })}`);
      expect(failures).toEqual([]);
      expect(total.kills).toBeGreaterThanOrEqual(ITERATIONS);
      expect(total.acked).toBeGreaterThan(0);
    },
    Math.max(180_000, ITERATIONS * 1_500), // a child process per kill: slow on a loaded machine, never a speed target
  );
});
