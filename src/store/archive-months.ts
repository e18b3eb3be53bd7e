/**
 * The archive's month files checked against its catalog at start, without
 * reading them: the catalog records each month file's size as the archive
 * last wrote it (month files are only ever replaced whole, by the archive),
 * so one `stat` per month tells a file that lost drafts from one that is as
 * written. Pure: the caller stats, this judges.
 */

/** What the check concludes. */
export interface MonthFilesVerdict {
  /**
   * Months the catalog lists drafts in whose file lost some or all of them
   * (missing, empty, shorter than written), with what is wrong: lookups
   * that land there are refused naming it, never "not found".
   */
  readonly short: ReadonlyMap<string, string>;
  /**
   * True when a month file holds more than the catalog knows (a file it
   * does not list, or one longer than written: a catalog older than its
   * files, or a crash between a month file and the catalog): rebuild it.
   */
  readonly stale: boolean;
  /** The sizes to record from now on: as written where known, else as found (a catalog from before sizes were kept). */
  readonly sizes: ReadonlyMap<string, number>;
}

/**
 * Judges the month files on disk (`onDisk`: month -> size in bytes) against
 * the catalog's months and the sizes it recorded (`written`; a month absent
 * there was catalogued before sizes were kept: only a missing or empty file
 * can be told then).
 */
export function judgeMonthFiles(
  catalogMonths: readonly string[],
  written: ReadonlyMap<string, number>,
  onDisk: ReadonlyMap<string, number>,
): MonthFilesVerdict {
  const short = new Map<string, string>();
  const sizes = new Map<string, number>();
  let stale = false;
  for (const month of catalogMonths) {
    const size = onDisk.get(month);
    const was = written.get(month);
    if (size === undefined) short.set(month, "it is missing");
    else if (size === 0 && was !== 0) short.set(month, "it is empty");
    else if (was !== undefined && size < was)
      short.set(month, `it is shorter than the archive wrote it (${size} of ${was} bytes): truncated, or replaced by an older copy`);
    else if (was !== undefined && size > was) stale = true;
    const keep = was ?? size;
    if (keep !== undefined) sizes.set(month, keep);
  }
  for (const month of onDisk.keys()) if (!catalogMonths.includes(month)) stale = true;
  return { short, stale, sizes };
}
