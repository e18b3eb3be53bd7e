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
