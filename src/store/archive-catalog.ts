import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "./crc32.js";
import { errCode, errMessage, readFileNoFollow, writeFileDurably } from "./fs-util.js";
import { checkLine, CRC_SUFFIX_BYTES, encodeLine } from "./line-codec.js";

/**
 * The archive's catalog file, `archive/catalog.bin`: a checksummed JSON
 * header line (version, months, count, body checksum, and each month file's
 * size as the archive wrote it), then sorted pairs of 32-bit
 * [key hash, month index]. See archive.ts for what it is for.
 */

/** The catalog's file name in the archive directory. */
export const CATALOG = "catalog.bin";
/** 2: review message ids are keys too. A catalog of another version is rebuilt from the month files. */
const CATALOG_VERSION = 2;
const MONTH_FILE = /^telegram_drafts-(\d{4}-\d{2})\.jsonl$/;

/** The month file of `month`. */
export function monthFileName(month: string): string {
  return `telegram_drafts-${month}.jsonl`;
}

/** The hash a draft id is catalogued under. */
export const idKey = (id: string) => hash32(`i:${id}`);
/** The hash an idempotency key is catalogued under. */
export const idemKey = (key: string) => hash32(`k:${key}`);
/** The hash a review message id is catalogued under. */
export const messageKey = (messageId: number) => hash32(`m:${messageId}`);

function hash32(s: string): number {
  return crc32(Buffer.from(s));
}

/** A catalog as read: its pairs, months and recorded month file sizes, or why it cannot be used. */
export type CatalogRead = { ok: true; pairs: Uint32Array; months: string[]; files: Map<string, number> } | { ok: false; problem: string };

/** Reads the catalog at `path`; never throws (a missing or damaged one is rebuilt by the caller). */
export async function readCatalog(path: string): Promise<CatalogRead> {
  let buf: Buffer;
  try {
    buf = await readFileNoFollow(path);
  } catch (err) {
    return { ok: false, problem: errCode(err) === "ENOENT" ? "it is missing" : `it cannot be read: ${errMessage(err)}` };
  }
  const nl = buf.indexOf(0x0a);
  if (nl < 0 || checkLine(buf, 0, nl) !== null) return { ok: false, problem: "its header is damaged" };
  let header: { v?: unknown; months?: unknown; count?: unknown; body_crc?: unknown; files?: unknown };
  try {
    header = JSON.parse(`${buf.toString("utf8", 0, nl - CRC_SUFFIX_BYTES)}}`) as typeof header;
  } catch {
    return { ok: false, problem: "its header is not JSON" };
  }
  const { months, count, body_crc } = header;
  if (
    header.v !== CATALOG_VERSION ||
    !Array.isArray(months) ||
    !months.every((m) => typeof m === "string") ||
    typeof count !== "number" ||
    typeof body_crc !== "number"
  ) {
    return { ok: false, problem: "its header is not one this version reads" };
  }
  const body = buf.subarray(nl + 1);
  if (body.length !== count * 8 || crc32(body) !== body_crc) return { ok: false, problem: "its body is damaged" };
  const pairs = new Uint32Array(count * 2);
  Buffer.from(pairs.buffer).set(body);
  return { ok: true, pairs, months: months as string[], files: fileSizes(header.files) };
}

/** The month file sizes of a catalog header; a catalog from before they were kept has none. */
function fileSizes(files: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (typeof files !== "object" || files === null) return out;
  for (const [month, size] of Object.entries(files))
    if (Number.isSafeInteger(size) && (size as number) >= 0) out.set(month, size as number);
  return out;
}

/** Writes the catalog durably: the header line, then the pairs. */
export async function writeCatalog(
  dir: string,
  pairs: Uint32Array,
  months: readonly string[],
  sizes: ReadonlyMap<string, number>,
): Promise<void> {
  const body = Buffer.from(pairs.buffer, pairs.byteOffset, pairs.byteLength);
  const header = encodeLine({
    v: CATALOG_VERSION,
    months,
    count: pairs.length / 2,
    body_crc: crc32(body),
    // Each month file's size as written: the start's check (judgeMonthFiles). Readers before it ignore the field.
    files: Object.fromEntries(sizes),
  });
  await writeFileDurably(join(dir, CATALOG), Buffer.concat([Buffer.from(header), body]), { mode: 0o600 });
}

/** Months whose files may hold a key with this hash, newest first. */
export function candidateMonths(pairs: Uint32Array, months: readonly string[], hash: number): string[] {
  let lo = 0;
  let hi = pairs.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pairs[mid * 2]! < hash) lo = mid + 1;
    else hi = mid;
  }
  const found = new Set<string>();
  for (let i = lo; i < pairs.length / 2 && pairs[i * 2] === hash; i++) found.add(months[pairs[i * 2 + 1]!]!);
  return [...found].sort().reverse();
}

/** `pairs` with `entries` added, sorted, without duplicates. */
export function mergePairs(pairs: Uint32Array, entries: ReadonlyArray<readonly [number, number]>): Uint32Array {
  if (entries.length === 0) return pairs;
  const all: Array<readonly [number, number]> = [];
  for (let i = 0; i < pairs.length; i += 2) all.push([pairs[i]!, pairs[i + 1]!]);
  for (const e of entries) all.push(e);
  all.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: number[] = [];
  for (let i = 0; i < all.length; i++) {
    if (i > 0 && all[i]![0] === all[i - 1]![0] && all[i]![1] === all[i - 1]![1]) continue;
    out.push(all[i]![0], all[i]![1]);
  }
  return Uint32Array.from(out);
}

/** The month files in the archive directory, with their sizes (none when it does not exist yet). */
export async function monthSizes(dir: string): Promise<Map<string, number>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (errCode(err) === "ENOENT") return new Map();
    throw err;
  }
  const sizes = new Map<string, number>();
  for (const name of names.sort()) {
    const month = MONTH_FILE.exec(name)?.[1];
    if (month !== undefined) sizes.set(month, (await lstat(join(dir, name))).size);
  }
  return sizes;
}
