/**
 * A compact word-level diff for the review post: removed words struck
 * through, added words bold (entities on our own plain text, so the post
 * needs no parse_mode), with a few words of context around each change and
 * `…` for what is left out; and when a new version changed most of the words,
 * the verdict that it was rewritten instead (see `describeChange`).
 */
import { diffArrays } from "diff";

/** A run of the diff: kept, removed or added text (whitespace included). */
export interface DiffRun {
  readonly kind: "same" | "del" | "add";
  readonly text: string;
}

/** Words and the whitespace between them, as tokens (whitespace sticks to the word before it). */
function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * The word-level runs from `before` to `after`: jsdiff's array diff over our
 * word tokens, with words compared without their trailing whitespace, so a word
 * that moved to the end of a line still matches (jsdiff's `diffWordsWithSpace`
 * would count that line break as a change). Kept runs carry the new text.
 */
export function wordDiff(before: string, after: string): DiffRun[] {
  const changes = diffArrays(tokens(before), tokens(after), { comparator: (a, b) => a.trimEnd() === b.trimEnd() });
  const runs: DiffRun[] = [];
  for (const c of changes) {
    const kind: DiffRun["kind"] = c.added ? "add" : c.removed ? "del" : "same";
    const text = c.value.join("");
    const last = runs.at(-1);
    if (last && last.kind === kind) runs[runs.length - 1] = { kind, text: last.text + text };
    else runs.push({ kind, text });
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
  readonly mark: "del" | "add" | null;
}

/**
 * The compact diff's pieces: each change, with a few words of context around
 * it and `…` for what is left out. Two runs always stand a space apart: a run
 * that ends a text has no whitespace of its own, and the run after it (words
 * removed from the end of the other text) would otherwise touch it ("me.Thanks").
 */
function compactPieces(runs: readonly DiffRun[]): Piece[] {
  if (runs.every((r) => r.kind === "same")) return [];
  const out: Piece[] = [];
  const put = (text: string, mark: Piece["mark"]) => {
    if (text === "") return;
    const last = out.at(-1)?.text;
    if (last !== undefined && !/\s$/.test(last) && !/^\s/.test(text)) out.push({ text: " ", mark: null });
    out.push({ text, mark });
  };
  runs.forEach((r, k) => {
    if (r.kind !== "same") {
      put(r.text.trimEnd(), r.kind);
      if (/\s$/.test(r.text)) put(" ", null);
    } else if (k === 0) put(lastWords(r.text, CONTEXT_WORDS), null);
    else if (k === runs.length - 1) put(firstWords(r.text, CONTEXT_WORDS), null);
    else if (tokens(r.text).length > 2 * CONTEXT_WORDS)
      put(`${firstWords(r.text, CONTEXT_WORDS)} ${lastWords(r.text, CONTEXT_WORDS).replace(/^…/, "")}`, null);
    else put(r.text, null);
  });
  return out;
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
  return richDiffOf(wordDiff(before, after), maxChars);
}

function richDiffOf(runs: readonly DiffRun[], maxChars: number): RichDiff {
  let text = "";
  const entities: RichDiff["entities"][number][] = [];
  for (const p of compactPieces(runs)) {
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

/**
 * Above this share of changed words a new version counts as rewritten, and
 * the post says so instead of showing a diff. The share is symmetric: the
 * words removed from the old text plus the words added in the new one, over
 * the words of both (a word kept counts once in each). Cases looked at:
 * a day changed in a 7-word line 0.14, two redacted items put back 0.23, a
 * sentence added 0.23, two of four sentences changed 0.25, typos fixed 0.33,
 * sentences reordered 0.36; against those, half of a message rephrased 0.59
 * (its diff was 148 characters for an 88-character text), a shortened
 * announcement 0.76, a wholesale rewrite 0.86 (a 218-character diff, half
 * strikethrough, for 109 characters), a change of tone 0.95. Every case at or
 * below 0.36 reads well as a diff and every one from 0.59 reads better as the
 * new text alone; 0.5 ("most of the words") lies between, as the contract says.
 */
export const REWRITE_SHARE = 0.5;

/** How a new version differs from the one before, as the review post says it. */
export type ChangeView =
  | { readonly kind: "none" }
  | { readonly kind: "diff"; readonly diff: RichDiff }
  | { readonly kind: "rewrite"; readonly share: number };

/** The share of changed words in a diff's runs (0: the same words; 1: none kept). See REWRITE_SHARE. */
export function changedWordShare(runs: readonly DiffRun[]): number {
  const count = (kind: DiffRun["kind"]) => runs.filter((r) => r.kind === kind).reduce((n, r) => n + words(r.text), 0);
  const kept = count("same");
  const total = 2 * kept + count("del") + count("add");
  return total === 0 ? 0 : 1 - (2 * kept) / total;
}

function words(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/**
 * What the review post shows of a change: nothing (the same words), the
 * compact diff, or, when more than `rewriteShare` (REWRITE_SHARE) of the
 * words changed, that it was rewritten (the post shows the new text in full
 * anyway). A change that must always show its words (the removed items put
 * back) passes Infinity.
 */
export function describeChange(before: string, after: string, rewriteShare = REWRITE_SHARE, maxChars = 600): ChangeView {
  const runs = wordDiff(before, after);
  if (runs.every((r) => r.kind === "same")) return { kind: "none" };
  const share = changedWordShare(runs);
  return share > rewriteShare ? { kind: "rewrite", share } : { kind: "diff", diff: richDiffOf(runs, maxChars) };
}
