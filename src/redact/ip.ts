import { contextBefore } from "./context.js";
import type { Detector, PiiSpan } from "./kinds.js";

/**
 * IP addresses, v4 and v6. IPv4 octets must be 0-255 without leading zeros,
 * and a dotted quad right after a version word ("version 10.1.2.3",
 * "build 4.18.0.2", "section 4.2.1.3") is a version or a section number.
 * IPv6 candidates are runs of hex digits, colons and dots that a small parser
 * then accepts or rejects, so times (`23:59:59`), MAC addresses, ratios and
 * `Foo::bar` stay. A port (`:8080`) or prefix length (`/24`) is kept.
 */
const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = new RegExp(String.raw`(?<![\w.])${OCTET}(?:\.${OCTET}){3}(?![\w]|\.\d)`, "g");
const IPV4_EXACT = new RegExp(String.raw`^${OCTET}(?:\.${OCTET}){3}$`);
const VERSION_WORD =
  /\b(?:v|ver|version|release|build|hotfix|patch|firmware|update|section|clause|step|item|rule)\.?\s*$|§\s*$/i;

const IPV6_RUN = /(?<![\w:.])[0-9A-Fa-f.]{0,39}:[0-9A-Fa-f:.]{1,44}/g;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** Finds IPv4 and IPv6 addresses. */
export const findIps: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(IPV4)) {
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

/** RFC 4291 text forms: eight groups, or fewer with one `::`, optionally ending in a dotted quad. */
export function isIpv6(s: string): boolean {
  if (s.split(":").length < 3) return false;
  let head = s;
  let groups = 0;
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    if (!IPV4_EXACT.test(tail)) return false;
    head = s[lastColon - 1] === ":" ? s.slice(0, lastColon + 1) : s.slice(0, lastColon);
    groups = 2;
  }
  const halves = head.split("::");
  if (halves.length > 2) return false;
  for (const half of halves) {
    if (half === "") continue;
    for (const group of half.split(":")) {
      if (!HEX_GROUP.test(group)) return false;
      groups += 1;
    }
  }
  return halves.length === 2 ? groups >= 1 && groups <= 7 : groups === 8;
}
