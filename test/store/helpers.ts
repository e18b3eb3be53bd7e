import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { z } from "zod";
import type { StoreLog } from "../../src/store/jsonl-store.js";

/** A small record for store tests. */
export const testRecord = z.object({ draft_id: z.string().min(1), version: z.number().int(), text: z.string() });
/** One test record. */
export type TestRecord = z.infer<typeof testRecord>;

/** A log that remembers what it was told. */
export interface MemoryLog extends StoreLog {
  warns: Array<{ obj: Record<string, unknown>; msg: string }>;
  infos: Array<{ obj: Record<string, unknown>; msg: string }>;
}

/** A StoreLog that records calls, for assertions. */
export function memoryLog(): MemoryLog {
  const log: MemoryLog = {
    warns: [],
    infos: [],
    warn: (obj, msg) => log.warns.push({ obj: obj as Record<string, unknown>, msg }),
    info: (obj, msg) => log.infos.push({ obj: obj as Record<string, unknown>, msg }),
  };
  return log;
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A fresh temp directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "draft-store-"));
  dirs.push(d);
  return d;
}

/** Record `id` at `version`, with a text that depends on both. */
export function rec(id: string, version: number, extra = ""): TestRecord {
  return { draft_id: id, version, text: `${id} v${version} ${extra}` };
}
