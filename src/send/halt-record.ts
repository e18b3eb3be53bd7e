import { z } from "zod";
import { errCode, errMessage, readNoFollowNow, writeFileDurably } from "../store/fs-util.js";

/**
 * HARNESS_DIR/halt_record.json: when the last halt began and, once it was
 * seen lifted, when it ended. A halt voids every approval made before its
 * end, also one whose send falls due after a restart: the record is what a
 * start knows of halts that came and went before it (the HALT file is gone
 * once lifted, and the daemon's own sightings die with it).
 */
export const haltRecordSchema = z.object({
  v: z.literal(1),
  /** When the halt began (ISO-8601 UTC). */
  began_at: z.iso.datetime(),
  /** When it was seen lifted; null while it lasts (or when a stop came first). */
  ended_at: z.iso.datetime().nullable(),
  /** Why sends halted (the kill switch's reason). */
  reason: z.string().max(1000),
});
/** The halt record's content. */
export type HaltRecord = z.infer<typeof haltRecordSchema>;

/** What the record file says: no halt was ever recorded, the last halt, or a file that cannot be read (halts count as lasting). */
export type HaltRecordRead =
  | { readonly kind: "none" }
  | { readonly kind: "record"; readonly record: HaltRecord }
  | { readonly kind: "damaged"; readonly problem: string };

/**
 * Reads the record; never throws: an unreadable or damaged file is reported as such. Read synchronously
 * (a file of a hundred bytes): every look of the kill switch reads it, on the path of every send call.
 */
export async function readHaltRecord(path: string): Promise<HaltRecordRead> {
  let text: string;
  try {
    text = readNoFollowNow(path);
  } catch (err) {
    if (errCode(err) === "ENOENT") return { kind: "none" };
    return { kind: "damaged", problem: `cannot read ${path} (${errMessage(err)})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = haltRecordSchema.safeParse(json);
  return parsed.success ? { kind: "record", record: parsed.data } : { kind: "damaged", problem: `${path} is damaged` };
}

/** Writes the record atomically and durably (temp file, fsync, rename, directory fsync). */
export async function writeHaltRecord(path: string, record: HaltRecord): Promise<void> {
  await writeFileDurably(path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** A record of a halt that began at `at` and lasts. */
export function haltBegan(at: number, reason: string): HaltRecord {
  return { v: 1, began_at: new Date(at).toISOString(), ended_at: null, reason: reason.slice(0, 1000) };
}

/** The record once the halt was seen lifted at `at` (never earlier than it began). */
export function haltEnded(record: HaltRecord, at: number): HaltRecord {
  return { ...record, ended_at: new Date(Math.max(at, Date.parse(record.began_at))).toISOString() };
}

/**
 * The last moment the record proves a halt in force, and why: its end, or
 * `now` while it lasts. A damaged record counts as a halt lasting until now
 * (fail closed: every earlier approval is void). Null: no halt recorded.
 */
export function lastHaltIn(read: HaltRecordRead, now: number): { at: number; reason: string } | null {
  if (read.kind === "none") return null;
  if (read.kind === "damaged") return { at: now, reason: `${read.problem}; every earlier approval counts as halted` };
  const { record } = read;
  return { at: record.ended_at === null ? now : Date.parse(record.ended_at), reason: record.reason };
}
