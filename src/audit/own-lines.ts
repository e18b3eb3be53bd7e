import type { FileHandle } from "node:fs/promises";
import type { AuditIndex } from "./audit-index.js";

/**
 * Our lines appended to the audit log since it was last scanned, while nothing else is known to have
 * been written after that scan. A catch-up that finds the file ending where our last line did reads
 * nothing: each of those lines is in the index already, at its exact offset. (A checkpoint, every
 * checkpointEvery lines, would otherwise read and verify them all again while appends wait.)
 */
export class OwnLinesSinceScan {
  private lines = 0;
  private last: [number, number] | null = null;

  constructor(private clean: boolean) {}

  /** A scan read the file to its end; `clean` when it ended on a whole line. */
  scanned(clean: boolean): void {
    this.clean = clean;
    this.lines = 0;
    this.last = null;
  }

  /** Something not ours may follow the scan: another writer's unfinished line, or a write of ours that failed. */
  lost(): void {
    this.clean = false;
  }

  /** `count` lines of ours were appended, the last at bytes [start, end), its newline excluded. */
  appended(count: number, last: [number, number]): void {
    if (!this.clean) return;
    this.lines += count;
    this.last = last;
  }

  /** When the file ends at `floor` (where our last line did) and only our lines follow the scan: the index moves there, true. */
  async skipRead(index: AuditIndex, fh: FileHandle, floor: number): Promise<boolean> {
    if (!this.clean) return false;
    const { size } = await fh.stat();
    if (size !== floor) return false;
    index.scannedTo = size;
    index.linesBefore += this.lines;
    if (this.last !== null) index.head = this.last;
    this.scanned(true);
    return true;
  }
}
