/**
 * Tamper evidence of the audit log (swarm.jsonl) as the real daemon writes it
 * (`node dist/main.js`, test mode), with other writers appending their own
 * lines at the same time. Each of our lines carries the sha256 of our
 * previous one and a proof made with the audit key; verifyAuditChain and
 * `draft-review audit verify` report the first broken link for an edited
 * line (the line itself: its proof fails), a deleted line, a reordered pair,
 * or a forged line, and pass other writers' lines interleaved.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { DEFAULT_AUDIT_SOURCE, verifyAuditChain } from "../../src/audit/audit-log.js";
import { cleanup, figures, payload, prng, runTestModeRaw, sample, scaled, sweepDir, tempDir } from "./support/hostile-kit.js";
import { clockEnv } from "../support/clock-env.js";
import { harnessKey } from "../support/audit-key.js";

const OURS = `"source":"${DEFAULT_AUDIT_SOURCE}"`;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

let cwd: string;
let harnessDir: string;
/** The audit log's lines as the daemon and the other writers left them. */
let original: string[];
let interleaved = 0;

/** Runs one test-mode session while another program appends its own lines to swarm.jsonl. */
async function sessionWithOtherWriter(lines: unknown[], writer: string): Promise<void> {
  const audit = harnessPaths(harnessDir).audit;
  let n = 0;
  let running = true;
  const other = (async () => {
    while (running && n < 500) {
      await appendFile(
        audit,
        `${JSON.stringify({ ts: new Date().toISOString(), source: writer, kind: "heartbeat", n: n++, note: `quotes us: ${OURS}` })}\n`,
      );
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  const run = await runTestModeRaw(
    lines.map((l) => JSON.stringify(l)),
    { cwd, harnessDir },
  );
  running = false;
  await other;
  expect(run.code, run.stderr).toBe(0);
}

beforeAll(async () => {
  cwd = await tempDir();
  harnessDir = join(cwd, ".harness");
  await mkdir(harnessDir, { recursive: true, mode: 0o700 });
  // Session 1: three drafts; the reviewer sends one, a stranger tries; another writer appends meanwhile.
  await sessionWithOtherWriter(
    [
      payload("Tamper one"),
      payload("Tamper two"),
      payload("Tamper three"),
      { cmd: "react", review_message_id: 1, emoji: "👍" },
      { cmd: "react", review_message_id: 2, emoji: "👍", user_id: 42 },
    ],
    "other-agent",
  );
  await appendFile(
    harnessPaths(harnessDir).audit,
    `${JSON.stringify({ ts: new Date().toISOString(), source: "scribe", kind: "note", text: "between sessions" })}\n`,
  );
  // Session 2: more decisions, and a last line that is a transition.
  await sessionWithOtherWriter(
    [
      { cmd: "reply", review_message_id: 2, text: "warmer, please" },
      { cmd: "react", review_message_id: 3, emoji: "😴" },
      payload("Tamper four"),
      { cmd: "react", review_message_id: 5, emoji: "👎" },
    ],
    "cos-agent",
  );
  original = (await readFile(harnessPaths(harnessDir).audit, "utf8")).split("\n").filter((l) => l !== "");
  interleaved = original.filter((l) => !isOurs(l)).length;
});

afterAll(cleanup);

function isOurs(line: string): boolean {
  try {
    return (JSON.parse(line) as { source?: unknown }).source === DEFAULT_AUDIT_SOURCE;
  } catch {
    return false;
  }
}

/** 1-based file line numbers of our lines. */
function ourLineNumbers(lines: string[]): number[] {
  return lines.flatMap((l, i) => (isOurs(l) ? [i + 1] : []));
}

async function verdictOf(lines: string[]) {
  const path = join(await sweepDir(), "swarm.jsonl");
  await writeFile(path, `${lines.join("\n")}\n`);
  return verifyAuditChain(path, DEFAULT_AUDIT_SOURCE, await harnessKey(harnessDir));
}

describe("the audit chain as the daemon writes it", () => {
  it("links each of our lines to the previous one by sha256, with other writers' lines interleaved", async () => {
    const ours = original.filter(isOurs);
    expect(ours.length).toBeGreaterThanOrEqual(12);
    expect(interleaved).toBeGreaterThan(0);
    let prev = "";
    ours.forEach((line, i) => {
      const o = JSON.parse(line) as { seq: number; prev_hash: string };
      expect(o.seq).toBe(i + 1);
      expect(o.prev_hash).toBe(prev);
      prev = sha(line);
    });
    expect(await verifyAuditChain(harnessPaths(harnessDir).audit)).toEqual({ ok: true, lines: ours.length });
    // Every line of ours carries a proof made with the key.
    expect(ours.every((l) => /,"mac":"[0-9a-f]{64}"\}$/.test(l))).toBe(true);
    expect(await verifyAuditChain(harnessPaths(harnessDir).audit, DEFAULT_AUDIT_SOURCE, await harnessKey(harnessDir))).toEqual({
      ok: true,
      lines: ours.length,
    });
    // Other writers' lines may be moved or removed: they are not ours to vouch for.
    const withoutOthers = original.filter(isOurs);
    expect(await verdictOf(withoutOthers)).toEqual({ ok: true, lines: ours.length });
    const nums = ourLineNumbers(original);
    const gaps = nums.slice(1).filter((n, i) => n - nums[i]! > 1).length;
    expect(gaps).toBeGreaterThan(0);
    figures("tamper chain", {
      our_lines: ours.length,
      other_writers_lines: interleaved,
      links_with_other_lines_between: gaps,
      chain_ok: true,
    });
  });
});

describe("tampering is reported at the first broken link", () => {
  it("edited, deleted, reordered and forged lines, at every position", async () => {
    const positions = ourLineNumbers(original);
    const last = positions.length - 1;
    const rand = prng(31);
    const picks = sample(0, positions.length, scaled(positions.length), rand);
    const tally = { edited: 0, edited_broken_json: 0, deleted: 0, reordered: 0, forged: 0, detected: 0, undetectable_last_line: 0 };
    for (const k of picks) {
      const at = positions[k]! - 1; // 0-based index into original
      const nextOurs = k < last ? positions[k + 1]! : undefined;

      // Edit a value, keeping valid JSON (the reviewer's emoji, a status, a text...).
      const edited = [...original];
      edited[at] = original[at]!.replace(/"kind":"([a-z_]+)"/, (_m, kind: string) => `"kind":"${kind}x"`);
      expect(edited[at]).not.toBe(original[at]);
      const v1 = await verdictOf(edited);
      // Cut the line short: it no longer parses, and is skipped as a torn line would be.
      const broken = [...original];
      broken[at] = original[at]!.slice(0, -5);
      const v2 = await verdictOf(broken);
      // Delete it.
      const deleted = original.filter((_, i) => i !== at);
      const v3 = await verdictOf(deleted);
      // An edited line's proof no longer verifies: it is named itself, the last line too.
      expect(v1).toMatchObject({ ok: false, line: at + 1, reason: expect.stringMatching(/without valid proof/) });
      tally.detected++;
      if (nextOurs === undefined) {
        // A cut or deleted very last line leaves nothing to see (documented); the daemon's next start re-audits a transition.
        expect(v2.ok && v3.ok).toBe(true);
        tally.undetectable_last_line += 2;
      } else {
        expect(v2).toMatchObject({ ok: false, line: nextOurs });
        expect(v3).toMatchObject({ ok: false, line: nextOurs - 1 });
        tally.detected += 2;
      }
      tally.edited++;
      tally.edited_broken_json++;
      tally.deleted++;

      // Swap it with our next line.
      if (nextOurs !== undefined) {
        const swapped = [...original];
        swapped[at] = original[nextOurs - 1]!;
        swapped[nextOurs - 1] = original[at]!;
        expect(await verdictOf(swapped)).toMatchObject({ ok: false, line: at + 1 });
        tally.reordered++;
        tally.detected++;
      }

      // A forged line of ours, inserted before this one (a writer claiming our source).
      const forged = [...original];
      const copy = JSON.parse(original[at]!) as Record<string, unknown>;
      forged.splice(at, 0, JSON.stringify({ ...copy, kind: "transition", to: "approved", user_id: 5550001 }));
      const v4 = await verdictOf(forged);
      if (forged[at] === original[at] || JSON.parse(original[at]!).kind === "key_anchor") {
        // A copy of our own line (the "forgery" changed nothing: it was already an approval by that user), or a line
        // inserted before the key anchor (where lines without proof are judged by the chain; no append can put one
        // there): the chain shows it at the next line. The daemon's index skips a copy (its seq is not new).
        expect(v4).toMatchObject({ ok: false, line: at + 2 });
      } else {
        expect(v4).toMatchObject({ ok: false, line: at + 1, reason: expect.stringMatching(/without valid proof/) });
      }
      tally.forged++;
      tally.detected++;
    }
    figures("tamper verify", { positions: picks.length, ...tally });
  });

  it("`draft-review audit verify` reports the same first broken link, and exits 1", async () => {
    const positions = ourLineNumbers(original);
    const k = Math.floor(positions.length / 2);
    const at = positions[k]! - 1;
    const nextOurs = positions[k + 1]!;
    const edited = [...original];
    edited[at] = original[at]!.replace(/"ts":"[^"]+"/, '"ts":"2020-01-01T00:00:00.000Z"');
    const deleted = original.filter((_, i) => i !== at);
    const swapped = [...original];
    swapped[at] = original[nextOurs - 1]!;
    swapped[nextOurs - 1] = original[at]!;
    const cases: Array<[string, string[], number | null]> = [
      ["intact", original, null],
      ["edited", edited, at + 1],
      ["deleted", deleted, nextOurs - 1],
      ["reordered", swapped, at + 1],
    ];
    const results = await Promise.all(
      cases.map(async ([name, lines, line]) => {
        const dir = await tempDir();
        const h = join(dir, ".harness");
        await mkdir(h, { recursive: true });
        await writeFile(harnessPaths(h).audit, `${lines.join("\n")}\n`);
        await cp(harnessPaths(harnessDir).auditKey, harnessPaths(h).auditKey);
        const run = await cli(["audit", "verify", "--source", DEFAULT_AUDIT_SOURCE], dir, h);
        return { name, line, ...run };
      }),
    );
    for (const r of results) {
      if (r.line === null) {
        expect(r.code, r.out).toBe(0);
      } else {
        expect(r.code, r.out).toBe(1);
        expect(r.out, r.name).toContain(`line ${r.line}`);
      }
    }
    figures("tamper cli", { cases: results.length, exit_codes: Object.fromEntries(results.map((r) => [r.name, r.code])) });
  });

  it("a deleted last transition, which the chain cannot see, is audited again as `recovered` at the next start", async () => {
    const dir = await tempDir();
    const h = join(dir, ".harness");
    await cp(harnessDir, h, { recursive: true });
    // The last transition and what followed it (a status edit's `status_shown` line): a cut tail the chain cannot see.
    const lastTransition =
      ourLineNumbers(original)
        .filter((n) => JSON.parse(original[n - 1]!).kind === "transition")
        .at(-1)! - 1;
    const lines = original.filter((l, i) => i < lastTransition || (i > lastTransition && !isOurs(l)));
    const removed = JSON.parse(original[lastTransition]!) as { kind: string; draft_id: string; version: number };
    expect(removed.kind).toBe("transition");
    await writeFile(harnessPaths(h).audit, `${lines.join("\n")}\n`);
    expect(await verifyAuditChain(harnessPaths(h).audit)).toMatchObject({ ok: true });
    const run = await runTestModeRaw([JSON.stringify({ cmd: "list" })], { cwd: dir, harnessDir: h });
    expect(run.code).toBe(0);
    const after = (await readFile(harnessPaths(h).audit, "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const recovered = after.filter((l) => l.event === "recovered" && l.draft_id === removed.draft_id && l.version === removed.version);
    expect(recovered).toHaveLength(1);
    figures("tamper last-line", { deleted_last_transition: 1, reaudited_as_recovered: recovered.length });
  });
});

/** Runs the `draft-review` CLI (bin/draft-review.js) with HARNESS_DIR. */
function cli(args: string[], cwdDir: string, h: string): Promise<{ code: number | null; out: string }> {
  const bin = resolve(import.meta.dirname, "../../bin/draft-review.js");
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: cwdDir,
      env: { PATH: process.env.PATH ?? "", ...clockEnv(), HARNESS_DIR: h },
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.on("exit", (code) => done({ code, out }));
  });
}
