import { crc32 as zlibCrc32 } from "node:zlib";

/**
 * CRC-32 (IEEE 802.3, the zlib/PNG polynomial) of `buf[start, end)`: Node's
 * native `zlib.crc32` (Node >= 20.15, see `engines`). Pass a previous result
 * as `crc` to continue a checksum over several pieces
 * (`crc32(b, 0, b.length) === crc32(b, k, b.length, crc32(b, 0, k))`).
 */
export function crc32(buf: Uint8Array, start = 0, end = buf.length, crc = 0): number {
  return zlibCrc32(start === 0 && end === buf.length ? buf : buf.subarray(start, end), crc);
}

/** The CRC-32 table for one byte at a time (only `crc32Byte` uses it: a whole buffer goes to zlib). */
const BYTE_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** Continues a CRC-32 (as `crc32` returns it) with one more byte, without a call into zlib: `crc32Byte(crc32(b), x) === crc32(Buffer.concat([b, Buffer.from([x])]))`. */
export function crc32Byte(crc: number, byte: number): number {
  const c = ~crc;
  return ~(BYTE_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8)) >>> 0;
}
