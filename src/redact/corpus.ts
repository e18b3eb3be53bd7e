import { PII_KINDS, type PiiKind } from "./kinds.js";

/**
 * The labelled corpus format (test/redact/corpus.jsonl): one JSON object per
 * line. `expect` lists every piece of PII in `text` with its exact position,
 * so scoring compares spans, not just counts.
 */
export interface CorpusEntry {
  readonly id: string;
  /** `pii` has at least one expectation; `hard-negative` looks like PII and is not; `plain` is ordinary prose. */
  readonly group: "pii" | "hard-negative" | "plain";
  readonly text: string;
  readonly expect: readonly ExpectedPii[];
}

/** One labelled piece of PII: `text.slice(start, start + value.length) === value`. */
export interface ExpectedPii {
  readonly kind: PiiKind;
  readonly value: string;
  readonly start: number;
}

const GROUPS = new Set(["pii", "hard-negative", "plain"]);

/**
 * Parses and checks a corpus file's contents. Throws on a malformed line (a
 * broken corpus is a bug in the test data, not an expected outcome), naming
 * the line so it can be fixed.
 */
export function parseCorpus(jsonl: string): CorpusEntry[] {
  const entries: CorpusEntry[] = [];
  jsonl.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `corpus line ${index + 1}`;
    const raw = JSON.parse(line) as Partial<CorpusEntry>;
    if (typeof raw.id !== "string" || typeof raw.text !== "string" || !Array.isArray(raw.expect)) {
      throw new Error(`${where}: needs id, text and expect`);
    }
    if (typeof raw.group !== "string" || !GROUPS.has(raw.group)) throw new Error(`${where}: bad group`);
    for (const e of raw.expect) checkExpectation(raw.text, e, where);
    entries.push(raw as CorpusEntry);
  });
  return entries;
}

function checkExpectation(text: string, e: ExpectedPii, where: string): void {
  if (!PII_KINDS.includes(e.kind)) throw new Error(`${where}: unknown kind ${String(e.kind)}`);
  if (text.slice(e.start, e.start + e.value.length) !== e.value) {
    throw new Error(`${where}: ${e.kind} value ${JSON.stringify(e.value)} is not at ${e.start}`);
  }
}
