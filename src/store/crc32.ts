import * as zlib from "node:zlib";

/**
 * CRC-32 (IEEE 802.3, the zlib/PNG polynomial). Slice-by-8 in plain JS
 * (about 1 GB/s), because `zlib.crc32` only exists from Node 20.15; where it
 * exists it is used for long ranges, where it is faster (SIMD) despite the
 * cost of a native call, which makes it slower than JS below ~512 bytes.
 */

/** `zlib.crc32` when this Node has it. */
const native: ((data: Uint8Array, value?: number) => number) | undefined =
  typeof (zlib as { crc32?: unknown }).crc32 === "function" ? zlib.crc32 : undefined;
/** From this many bytes on, the native call wins. */
const NATIVE_MIN_BYTES = 512;

const POLY = 0xedb88320;
/** Eight 256-entry tables: T[k*256+n] is the CRC of byte n followed by k zero bytes. */
const T = buildTables();

function buildTables(): Int32Array {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLY ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/**
 * CRC-32 of `buf[start, end)`. Pass a previous result as `crc` to continue a
 * checksum over several pieces (`crc32(b, 0, b.length) === crc32(b, k, b.length, crc32(b, 0, k))`).
 */
export function crc32(buf: Uint8Array, start = 0, end = buf.length, crc = 0): number {
  if (native && end - start >= NATIVE_MIN_BYTES) return native(buf.subarray(start, end), crc);
  let c = ~crc;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const a = (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)) ^ c;
    c =
      T[1792 + (a & 0xff)]! ^
      T[1536 + ((a >>> 8) & 0xff)]! ^
      T[1280 + ((a >>> 16) & 0xff)]! ^
      T[1024 + (a >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^
      T[512 + buf[i + 5]!]! ^
      T[256 + buf[i + 6]!]! ^
      T[buf[i + 7]!]!;
  }
  for (; i < end; i++) c = T[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
