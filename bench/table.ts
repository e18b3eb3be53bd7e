/** One line of the benchmark table: a figure, its target, and whether it meets it. */
export interface Row {
  readonly section: string;
  readonly metric: string;
  readonly value: string;
  readonly target: string;
  /** PASS / MISS against the target; "info" for a figure shown for comparison; "SKIP" when not measured. */
  readonly verdict: "PASS" | "MISS" | "info" | "SKIP";
}

/** A row with a target: PASS when `ok`. */
export function judged(section: string, metric: string, value: string, target: string, ok: boolean): Row {
  return { section, metric, value, target, verdict: ok ? "PASS" : "MISS" };
}

/** A row shown for comparison only. */
export function info(section: string, metric: string, value: string, target = ""): Row {
  return { section, metric, value, target, verdict: "info" };
}

/** A row for a measurement that did not run, with why. */
export function skipped(section: string, metric: string, why: string, target = ""): Row {
  return { section, metric, value: why, target, verdict: "SKIP" };
}

/** The rows as one plain-text table with aligned columns. */
export function renderTable(rows: readonly Row[]): string {
  const head = ["#", "measure", "figure", "target", "verdict"];
  const cells = rows.map((r) => [r.section, r.metric, r.value, r.target, r.verdict]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join(" | ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("-+-");
  return [line(head), rule, ...cells.map(line)].join("\n");
}
