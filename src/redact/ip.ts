import { isIPv4, isIPv6 } from "node:net";
import { contextBefore } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * IP addresses, v4 and v6. IPv4 octets must be 0-255 without leading zeros,
 * and a dotted quad right after a version word ("version 10.1.2.3",
 * "build 4.18.0.2", "section 4.2.1.3") is a version or a section number.
 * IPv6 candidates are runs of hex digits, colons and dots that Node's parser
 * (`net.isIPv6`) then accepts or rejects, so times (`23:59:59`), MAC addresses, ratios and
 * `Foo::bar` stay. A port (`:8080`) or prefix length (`/24`) is kept.
 */

/** Dotted quads as candidates; `net.isIPv4` decides (octets 0-255, no leading zeros). */
const IPV4_RUN = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)/g;
const VERSION_WORD = /\b(?:v|ver|version|release|build|hotfix|patch|firmware|update|section|clause|step|item|rule)\.?\s*$|§\s*$/i;

const IPV6_RUN = /(?<![\w:.])[0-9A-Fa-f.]{0,39}:[0-9A-Fa-f:.]{1,44}/g;

/** Finds IPv4 and IPv6 addresses. */
export const findIps: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(IPV4_RUN)) {
    if (!isIPv4(m[0])) continue;
    if (contextBefore(text, m.index, VERSION_WORD, 24)) continue;
    spans.push({ kind: "ip", start: m.index, end: m.index + m[0].length });
  }
  if (text.indexOf(":") !== text.lastIndexOf(":")) {
    for (const m of text.matchAll(IPV6_RUN)) {
      const end = m.index + m[0].length;
      if (/[\w:]/.test(text[end] ?? "")) continue;
      const candidate = trimRun(m[0]);
      if (isIpv6(candidate)) spans.push({ kind: "ip", start: m.index, end: m.index + candidate.length });
    }
  }
  return spans;
};

/** Drops trailing sentence dots and a single trailing colon (a colon that is not half of `::`). */
function trimRun(run: string): string {
  let s = run.replace(/\.+$/, "");
  if (s.endsWith(":") && !s.endsWith("::")) s = s.slice(0, -1);
  return s;
}

/**
 * An IPv6 address in RFC 4291 text form (Node's own parser), but never the
 * bare `::`: in prose that is punctuation, not "every address".
 */
export function isIpv6(s: string): boolean {
  return s !== "::" && isIPv6(s);
}
