/**
 * Characters a reader cannot see: format controls (zero-width spaces and
 * joiners, bidi embeddings and isolates, the word joiner, soft hyphen, BOM,
 * tag characters), fillers that render blank (Hangul fillers, braille blank),
 * and variation selectors that modify nothing. A draft can use them to pad
 * itself, hide text, or reorder what is shown; the review post counts them.
 */

const FILLERS = new Set([0x115f, 0x1160, 0x3164, 0xffa0, 0x2800, 0x180e, 0x034f]);
const ZWJ = 0x200d;
const TAG_BLACK_FLAG = 0x1f3f4;
/** Every character that countInvisible may count: format controls (tags and ZWJ among them), fillers, variation selectors. */
const MAY_COUNT = /\p{Cf}|[\u115f\u1160\u3164\uffa0\u2800\u180e]|\u034f|\p{Variation_Selector}/u;

function isPictographic(cp: number | undefined): boolean {
  return cp !== undefined && /\p{Extended_Pictographic}|[#*0-9]/u.test(String.fromCodePoint(cp));
}

function isVariationSelector(cp: number): boolean {
  return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

function isTag(cp: number): boolean {
  return cp >= 0xe0020 && cp <= 0xe007f;
}

/**
 * How many invisible characters `text` holds. Those that belong to an emoji
 * (a joiner between two pictographs, the selector after one, the tags of a
 * subdivision flag such as 🏴󠁧󠁢󠁳󠁣󠁴󠁿) are part of what is shown and do not count.
 */
export function countInvisible(text: string): number {
  // Most drafts hold none of the characters counted below: one scan of the string instead of a test per character.
  if (!MAY_COUNT.test(text)) return 0;
  const cps = Array.from(text, (c) => c.codePointAt(0)!);
  let count = 0;
  let inFlagTags = false;
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    const prev = cps[i - 1];
    if (isTag(cp)) {
      inFlagTags = inFlagTags || prev === TAG_BLACK_FLAG;
      if (!inFlagTags) count++;
      if (cp === 0xe007f) inFlagTags = false;
      continue;
    }
    inFlagTags = false;
    if (cp === ZWJ) {
      const before = isVariationSelector(prev ?? 0) ? cps[i - 2] : prev;
      if (isPictographic(before) && isPictographic(cps[i + 1])) continue;
      count++;
    } else if (isVariationSelector(cp)) {
      if (!isPictographic(prev)) count++;
    } else if (FILLERS.has(cp) || /\p{Cf}/u.test(String.fromCodePoint(cp))) {
      count++;
    }
  }
  return count;
}
