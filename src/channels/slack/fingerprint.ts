/**
 * A canonical digest of what an approval binds to: the same facts always
 * give the same string, whatever order they were gathered in.
 */
import { createHash } from "node:crypto";

/** sha256 (hex) of the JSON of `facts` with every object's keys sorted. */
export function fingerprintOf(facts: Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(facts)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
