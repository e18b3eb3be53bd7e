/**
 * Text in the report picture: escaped for XML, untrusted text (a reviewer's
 * note) made safe to draw, and a width estimate for Inter so that lines can
 * be fitted before they are drawn (a clip path guarantees the rest: resvg has
 * no text measuring API).
 */

/** The ink colours text is drawn in. */
export const INK = { ink: "#1f1f1f", muted: "#5f6368", white: "#ffffff" } as const;

/** `s` escaped for an XML text node or attribute. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Untrusted text as one drawable line: characters XML 1.0 cannot hold (C0/C1
 * controls, U+FFFE/U+FFFF, unpaired surrogates) would make the whole picture
 * unreadable to resvg, and bidi controls would reorder what is drawn after
 * them, so they go; line breaks and runs of spaces become one space.
 */
export function oneLine(text: string): string {
  return text
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    .replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufffe\uffff]/g, "")
    .replace(/[\p{Cc}\s]+/gu, " ")
    .trim();
}

/** The advance of one character in Inter, in em (close enough to fit a line; wide scripts count wide). */
function advance(c: string): number {
  if (c === " ") return 0.26;
  if (/[iIl.,:;'|!]/.test(c)) return 0.3;
  if (/[fjrt()[\]]/.test(c)) return 0.4;
  if (/[mwMW@%]/.test(c)) return 0.86;
  if (/[A-Z]/.test(c)) return 0.68;
  if (/[0-9]/.test(c)) return 0.6;
  if (c.codePointAt(0)! > 0x2e7f) return 1;
  return 0.56;
}

/** The estimated width of `text` at `size` px (bold adds a little). */
export function textWidth(text: string, size: number, bold = false): number {
  let em = 0;
  for (const c of text) em += advance(c);
  return em * size * (bold ? 1.05 : 1);
}

/** `text` cut (with …) to fit `width` px at `size` px. */
export function fitText(text: string, width: number, size: number, bold = false): string {
  if (textWidth(text, size, bold) <= width) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(`${chars.slice(0, mid).join("").trimEnd()}…`, size, bold) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join("").trimEnd()}…`;
}

/** How a text element is drawn. */
export interface TextStyle {
  readonly bold?: boolean;
  readonly fill?: string;
  readonly anchor?: "start" | "middle" | "end";
  /** The id of a clipPath that bounds it. */
  readonly clip?: string;
}

/** A `<text>` element; `body` is escaped here. */
export function text(x: number, y: number, size: number, body: string, style: TextStyle = {}): string {
  const weight = style.bold ? ' font-weight="700"' : "";
  const anchor = style.anchor && style.anchor !== "start" ? ` text-anchor="${style.anchor}"` : "";
  const clip = style.clip ? ` clip-path="url(#${style.clip})"` : "";
  return `<text x="${r(x)}" y="${r(y)}" font-size="${size}"${weight}${anchor}${clip} fill="${style.fill ?? INK.ink}">${esc(body)}</text>`;
}

/** A number for an attribute: at most one decimal. */
export function r(n: number): string {
  return String(Math.round(n * 10) / 10);
}
