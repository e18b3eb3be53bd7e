/**
 * A compact word-level diff for the review post: `[-removed-]{+added+}` (git's
 * word-diff notation, plain text, so the post needs no parse_mode), with a few
 * words of context around each change and `…` for what is left out.
 */

/** A run of the diff: kept, removed or added text (whitespace included). */
export interface DiffRun {
  readonly kind: "same" | "del" | "add";
  readonly text: string;
}

/** Words and the whitespace between them, as tokens (whitespace sticks to the word before it). */
function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** The word-level runs from `before` to `after` (a longest common subsequence of words). */
export function wordDiff(before: string, after: string): DiffRun[] {
  const a = tokens(before);
  const b = tokens(after);
  // Compared without trailing whitespace, so a word that moved to the end of a line still matches.
  const key = (t: string) => t.trimEnd();
  const n = a.length;
  const m = b.length;
  const lcs: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = key(a[i]!) === key(b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const runs: DiffRun[] = [];
  const push = (kind: DiffRun["kind"], text: string) => {
    const last = runs.at(-1);
    if (last && last.kind === kind) runs[runs.length - 1] = { kind, text: last.text + text };
    else runs.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && key(a[i]!) === key(b[j]!)) {
      push("same", b[j]!);
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      push("del", a[i++]!);
    } else {
      push("add", b[j++]!);
    }
  }
  return runs;
}

/** How many words of unchanged text stand on each side of a change. */
const CONTEXT_WORDS = 3;

function lastWords(text: string, k: number): string {
  const t = tokens(text);
  return (t.length > k ? "…" : "") + t.slice(-k).join("");
}

function firstWords(text: string, k: number): string {
  const t = tokens(text);
  return t.slice(0, k).join("").trimEnd() + (t.length > k ? " …" : "");
}

/**
 * The diff as one compact line-friendly text, at most `maxChars` long (then cut
 * with "…"). Empty when the texts are equal word for word.
 */
export function compactWordDiff(before: string, after: string, maxChars = 600): string {
  const runs = wordDiff(before, after);
  if (runs.every((r) => r.kind === "same")) return "";
  let out = "";
  runs.forEach((r, k) => {
    if (r.kind === "del") out += `[-${r.text.trimEnd()}-]` + (/\s$/.test(r.text) && runs[k + 1]?.kind !== "add" ? " " : "");
    else if (r.kind === "add") out += `{+${r.text.trimEnd()}+}` + (/\s$/.test(r.text) ? " " : "");
    else if (k === 0) out += lastWords(r.text, CONTEXT_WORDS);
    else if (k === runs.length - 1) out += firstWords(r.text, CONTEXT_WORDS);
    else if (tokens(r.text).length > 2 * CONTEXT_WORDS)
      out += `${firstWords(r.text, CONTEXT_WORDS)} ${lastWords(r.text, CONTEXT_WORDS).replace(/^…/, "")}`;
    else out += r.text;
  });
  out = out.trim();
  return out.length <= maxChars ? out : `${out.slice(0, maxChars - 1)}…`;
}
