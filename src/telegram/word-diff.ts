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

/** A piece of the compact diff: context (null), or removed or added words. */
interface Piece {
  readonly text: string;
  /** `sep`: the space between removed and added words, which git's notation does not need. */
  readonly mark: "del" | "add" | "sep" | null;
}

/** The compact diff's pieces: each change, with a few words of context around it and `…` for what is left out. */
function compactPieces(before: string, after: string): Piece[] {
  const runs = wordDiff(before, after);
  if (runs.every((r) => r.kind === "same")) return [];
  const out: Piece[] = [];
  const plain = (text: string) => out.push({ text, mark: null });
  runs.forEach((r, k) => {
    if (r.kind === "del") {
      out.push({ text: r.text.trimEnd(), mark: "del" });
      if (runs[k + 1]?.kind === "add") out.push({ text: " ", mark: "sep" });
      else plain(/\s$/.test(r.text) ? " " : "");
    } else if (r.kind === "add") {
      out.push({ text: r.text.trimEnd(), mark: "add" });
      plain(/\s$/.test(r.text) ? " " : "");
    } else if (k === 0) plain(lastWords(r.text, CONTEXT_WORDS));
    else if (k === runs.length - 1) plain(firstWords(r.text, CONTEXT_WORDS));
    else if (tokens(r.text).length > 2 * CONTEXT_WORDS)
      plain(`${firstWords(r.text, CONTEXT_WORDS)} ${lastWords(r.text, CONTEXT_WORDS).replace(/^…/, "")}`);
    else plain(r.text);
  });
  return out;
}

/**
 * The diff as one compact line-friendly text in git's word-diff notation
 * (`[-removed-]{+added+}`), at most `maxChars` long (then cut with "…").
 * Empty when the texts are equal word for word. For logs and the CLI; the
 * review post uses `richWordDiff`.
 */
export function compactWordDiff(before: string, after: string, maxChars = 600): string {
  let out = "";
  for (const p of compactPieces(before, after)) {
    if (p.mark === "del") out += `[-${p.text}-]`;
    else if (p.mark === "add") out += `{+${p.text}+}`;
    else if (p.mark === null) out += p.text;
  }
  out = out.trim();
  return out.length <= maxChars ? out : `${out.slice(0, maxChars - 1)}…`;
}

/** A diff text with Telegram entities: removed words struck through, added words bold. */
export interface RichDiff {
  readonly text: string;
  readonly entities: { readonly type: "strikethrough" | "bold"; readonly offset: number; readonly length: number }[];
}

/**
 * The compact diff for the review post: our own text, with the removed words
 * struck through and the added words in bold (entities, never a parse_mode),
 * at most `maxChars` long (then cut with "…"). Empty text when the texts are
 * equal word for word.
 */
export function richWordDiff(before: string, after: string, maxChars = 600): RichDiff {
  let text = "";
  const entities: RichDiff["entities"][number][] = [];
  for (const p of compactPieces(before, after)) {
    if ((p.mark === "del" || p.mark === "add") && p.text.length > 0)
      entities.push({ type: p.mark === "del" ? "strikethrough" : "bold", offset: text.length, length: p.text.length });
    text += p.text;
  }
  const lead = text.length - text.trimStart().length;
  text = text.trim();
  const cut = text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
  const limit = Math.min(text.length, maxChars - (cut === text ? 0 : 1));
  const kept = entities
    .map((e) => ({ ...e, offset: e.offset - lead }))
    .filter((e) => e.offset < limit)
    .map((e) => ({ ...e, length: Math.min(e.length, limit - e.offset) }));
  return { text: cut, entities: kept };
}
