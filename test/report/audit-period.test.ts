import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_AUDIT_SOURCE } from "../../src/audit/verify-chain.js";
import { readAuditPeriod } from "../../src/report/audit-period.js";

const HOUR = 3_600_000;
const T0 = Date.parse("2030-01-01T00:00:00Z");
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** One of our notice lines at `ms` (seq `seq`), padded to about 400 bytes like a transition line with its text. */
function ours(seq: number, ms: number): string {
  const entry = { kind: "notice", draft_id: `d${seq}`, status: "pending", text: "x".repeat(300) };
  return `${JSON.stringify({ ts: new Date(ms).toISOString(), source: DEFAULT_AUDIT_SOURCE, seq, prev_hash: "h", ...entry })}\n`;
}

describe("reading the audit lines of a period", () => {
  it("finds where the period starts without reading the history before it, skipping other writers' lines", async () => {
    dir = await mkdtemp(join(tmpdir(), "audit-period-"));
    const path = join(dir, "swarm.jsonl");
    const lines: string[] = [];
    // A year of history: one line of ours an hour, and another writer's line every 10 of ours.
    for (let i = 0; i < 24 * 365; i++) {
      lines.push(ours(i + 1, T0 + i * HOUR));
      if (i % 10 === 0) lines.push(`{"ts":"2099-01-01T00:00:00Z","source":"other-writer","n":${i}}\n`);
    }
    lines.push('{"torn":'); // someone's unfinished last line
    const body = lines.join("");
    await writeFile(path, body);
    const sinceMs = T0 + (24 * 365 - 24 * 7) * HOUR; // the last week
    const seen: number[] = [];
    const scan = await readAuditPeriod(path, DEFAULT_AUDIT_SOURCE, { sinceMs, untilMs: sinceMs + 24 * 7 * HOUR }, (at, l) => {
      expect(at).toBeGreaterThanOrEqual(sinceMs);
      seen.push(l.seq);
    });
    expect(seen).toHaveLength(24 * 7);
    expect(seen[0]).toBe(24 * 365 - 24 * 7 + 1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // One pass over the week (plus at most the search's last stretch), not over the year.
    expect(scan.bytesRead).toBeLessThan(24 * 7 * 420 + (64 << 10) + 4096);
    expect(scan.bytesRead).toBeLessThan(body.length / 20);
    expect(scan.startOffset).toBeGreaterThan(body.length * 0.95);
  });

  it("a line dated out of order (test mode's simulated clock) does not hide the period's lines after it", async () => {
    dir = await mkdtemp(join(tmpdir(), "audit-period-"));
    const path = join(dir, "swarm.jsonl");
    // A test-mode session that advanced 30 days wrote a line dated in the future; live lines follow it.
    await writeFile(path, [ours(1, T0), ours(2, T0 + 30 * 24 * HOUR), ours(3, T0 + HOUR), ours(4, T0 + 2 * HOUR)].join(""));
    const seen: number[] = [];
    await readAuditPeriod(path, DEFAULT_AUDIT_SOURCE, { sinceMs: T0, untilMs: T0 + 24 * HOUR }, (_at, l) => void seen.push(l.seq));
    expect(seen).toEqual([1, 3, 4]);
  });

  it("a period before every line reads from the start; a missing log has no lines", async () => {
    dir = await mkdtemp(join(tmpdir(), "audit-period-"));
    const path = join(dir, "swarm.jsonl");
    await writeFile(path, [ours(1, T0), ours(2, T0 + HOUR)].join(""));
    const seen: number[] = [];
    await readAuditPeriod(path, DEFAULT_AUDIT_SOURCE, { sinceMs: T0 - HOUR, untilMs: T0 + HOUR }, (_at, l) => void seen.push(l.seq));
    expect(seen).toEqual([1]);
    const none = await readAuditPeriod(join(dir, "missing.jsonl"), DEFAULT_AUDIT_SOURCE, { sinceMs: 0, untilMs: T0 }, () => {
      throw new Error("no line expected");
    });
    expect(none.bytesRead).toBe(0);
  });
});
