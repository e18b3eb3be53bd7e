/**
 * Why an archive lookup cannot answer: damaged lines in a month file, or a
 * month file that lost drafts the catalog files there. Never "not found".
 */

/** A line of a month file that fails its checksum (or is torn): kept as it is, never dropped. */
export interface DamagedLine {
  /** 1-based line number. */
  readonly line: number;
  readonly problem: string;
  /** The draft_id its first bytes name, when they still read as one (a hint: the bytes are damaged). */
  readonly draftId: string | null;
}

/**
 * A lookup that cannot be answered because a month file that may hold the
 * answer has damaged lines, or lost drafts the catalog files there (missing,
 * empty, shorter than written): never a silent "not found". The message
 * names the file, the lines, and what to do.
 */
export class ArchiveDamagedError extends Error {
  override readonly name = "ArchiveDamagedError";
}

/** The damaged lines of a month file, as a message names them. */
export function damageText(m: { path: string; damaged: readonly DamagedLine[] }): string {
  return `${m.path} ${m.damaged.map((d) => `line ${d.line} (${d.problem})`).join(", ")}`;
}

/** The error of a lookup that missed where damaged lines, or a month file that lost drafts, may hold the answer. */
export function notFoundInDamage(
  what: string,
  months: ReadonlyArray<{ path: string; damaged: readonly DamagedLine[] }>,
  lost: ReadonlyArray<{ path: string; problem: string }> = [],
): ArchiveDamagedError {
  const parts: string[] = [];
  if (lost.length > 0) {
    parts.push(
      `${what} is archived in ${lost.map((l) => `${l.path}, but ${l.problem.replace(/^it /, "that file ")}`).join("; and in ")}. ` +
        "Restore the file from a backup (to accept the loss instead, delete archive/catalog.bin: it is rebuilt from the month files there are).",
    );
  }
  if (months.length > 0) {
    parts.push(
      `${what} may be archived in a damaged line: ${months.map(damageText).join("; ")}. ` +
        "The archive keeps those lines as they are: restore the file from a backup.",
    );
  }
  return new ArchiveDamagedError(parts.join(" "));
}
