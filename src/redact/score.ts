import type { CorpusEntry } from "./corpus.js";
import { PII_KINDS } from "./kinds.js";

/**
 * Scores any redactor against the labelled corpus, so ours and the
 * alternatives are measured by the same rule. A found span counts as a true
 * positive only when its kind, start and end all equal a labelled one; a
 * found span of a kind outside `PiiKind` (an alternative's "name" or "url")
 * is scored under `other`.
 */
export interface FoundSpan {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

/** Counts and ratios for one category. A ratio with nothing to divide is 1. */
export interface CategoryScore {
  readonly kind: string;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  readonly precision: number;
  readonly recall: number;
}

/** The whole result: one row per category, and the ids of PII-free entries that something was found in. */
export interface CorpusScore {
  readonly rows: readonly CategoryScore[];
  readonly touchedNegatives: readonly string[];
  readonly misses: readonly string[];
}

/** How spans are compared: `exact` (kind, start and end) or `overlap` (same kind, any shared character). */
export type MatchRule = "exact" | "overlap";

/** Runs `find` on every entry and tallies tp/fp/fn per category. */
export function scoreCorpus(
  entries: readonly CorpusEntry[],
  find: (text: string) => readonly FoundSpan[],
  rule: MatchRule = "exact",
): CorpusScore {
  const tally = new Map<string, { tp: number; fp: number; fn: number }>();
  const bump = (kind: string, field: "tp" | "fp" | "fn") => {
    const row = tally.get(kind) ?? { tp: 0, fp: 0, fn: 0 };
    row[field] += 1;
    tally.set(kind, row);
  };
  const touchedNegatives: string[] = [];
  const misses: string[] = [];
  for (const entry of entries) {
    const found = find(entry.text);
    if (entry.expect.length === 0 && found.length > 0) touchedNegatives.push(entry.id);
    const matched = new Set<number>();
    for (const e of entry.expect) {
      const end = e.start + e.value.length;
      const hit = found.findIndex((f, i) => !matched.has(i) && f.kind === e.kind && same(f, e.start, end, rule));
      if (hit >= 0) {
        matched.add(hit);
        bump(e.kind, "tp");
      } else {
        bump(e.kind, "fn");
        misses.push(`${entry.id} missed ${e.kind} ${JSON.stringify(e.value)}`);
      }
    }
    found.forEach((f, i) => {
      if (matched.has(i)) return;
      const kind = (PII_KINDS as readonly string[]).includes(f.kind) ? f.kind : "other";
      bump(kind, "fp");
      misses.push(`${entry.id} extra ${f.kind} ${JSON.stringify(entry.text.slice(f.start, f.end))}`);
    });
  }
  const kinds = [...PII_KINDS, ...(tally.has("other") ? ["other"] : [])];
  const rows = kinds.map((kind) => ratios(kind, tally.get(kind) ?? { tp: 0, fp: 0, fn: 0 }));
  return { rows, touchedNegatives, misses };
}

function same(f: FoundSpan, start: number, end: number, rule: MatchRule): boolean {
  return rule === "exact" ? f.start === start && f.end === end : f.start < end && start < f.end;
}

function ratios(kind: string, t: { tp: number; fp: number; fn: number }): CategoryScore {
  const precision = t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp);
  const recall = t.tp + t.fn === 0 ? 1 : t.tp / (t.tp + t.fn);
  return { kind, ...t, precision, recall };
}

/** The per-category table as fixed-width text, for the report CLI and the comparison. */
export function formatTable(rows: readonly CategoryScore[]): string {
  const head = "kind      tp   fp   fn  precision  recall";
  const lines = rows.map(
    (r) =>
      `${r.kind.padEnd(8)}${String(r.tp).padStart(4)}${String(r.fp).padStart(5)}${String(r.fn).padStart(5)}` +
      `${r.precision.toFixed(3).padStart(11)}${r.recall.toFixed(3).padStart(8)}`,
  );
  return [head, ...lines].join("\n");
}
