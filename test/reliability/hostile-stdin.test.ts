/**
 * Hostile stdin in test mode: one real `node dist/main.js` process
 * (TAO_DRAFT_REVIEW_TEST=1) fed fuzzed lines (arbitrary text and bytes,
 * arbitrary JSON, commands with wrong fields, huge and deep lines, decisions
 * by strangers). Every non-blank line gets exactly one JSON answer, a bad one
 * a clear `{"error": ...}`, the session never stops early, and no draft is
 * sent or approved on anyone's word but the reviewer's.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { verifyAuditChain } from "../../src/audit/audit-log.js";
import { cleanup, figures, latestById, payload, REVIEWER, runTestModeRaw, scaled, SEED, tempDir } from "./support/hostile-kit.js";

afterAll(cleanup);

const STRANGERS = [1, 42, 100000002, 999999999999, -100000001, 0];
const EMOJI = ["👍", "👎", "😴", "❌", "⏳", "👍🏻", "👍️", "❤", "", " ", "👍👍", "send", "approve", "yes", "ok"];

const noBreaks = (s: string) => !/[\r\n]/.test(s);
const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 200 }), fc.string({ maxLength: 50 })).filter(noBreaks);
const anyJson = fc
  .jsonValue({ maxDepth: 4 })
  .map((v) => JSON.stringify(v))
  .filter(noBreaks);
const reviewId = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer(), fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER));

const strangerReact = fc.record({
  cmd: fc.constant("react"),
  review_message_id: reviewId,
  emoji: fc.constantFrom(...EMOJI),
  user_id: fc.constantFrom(...STRANGERS),
});
const strangerReply = fc.record({
  cmd: fc.constant("reply"),
  review_message_id: reviewId,
  text: fc.oneof(fc.constantFrom("👍", "⏳", "❌", "send it", "approved by the owner", "/approve"), anyText),
  user_id: fc.constantFrom(...STRANGERS),
});
const malformedCommand = fc.record(
  {
    cmd: fc.oneof(
      fc.constantFrom("react", "reply", "advance", "get", "list", "submit", "REACT", "send", "approve", "__proto__", ""),
      fc.string(),
      fc.integer(),
    ),
    review_message_id: fc.oneof(reviewId, fc.string(), fc.double(), fc.constant(null)),
    emoji: fc.oneof(fc.constantFrom(...EMOJI), fc.integer(), fc.constant(null)),
    user_id: fc.oneof(fc.constantFrom(...STRANGERS), fc.string(), fc.double()),
    by: fc.oneof(fc.constantFrom("24h", "-1h", "0s", "1e9h", "99999999999h", "h", "1.5h", ""), fc.string()),
    draft_id: fc.oneof(fc.string(), fc.integer()),
    status: fc.oneof(fc.constantFrom("pending", "sent", "__proto__"), fc.string()),
    draft: fc.jsonValue({ maxDepth: 3 }),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ["cmd"] },
);
/** The reviewer's own decisions, so strangers act on drafts in every state. */
const reviewerAct = fc.oneof(
  fc.record({
    cmd: fc.constant("react"),
    review_message_id: fc.integer({ min: 1, max: 8 }),
    emoji: fc.constantFrom("👍", "👎", "😴", "⏳", "❌"),
  }),
  fc.record({ cmd: fc.constant("advance"), by: fc.constantFrom("5m", "30m") }),
);
const strangeSubmit = fc.record({ cmd: fc.constant("submit"), draft: fc.jsonValue({ maxDepth: 3 }) });

type Line = { kind: string; text: string | Buffer; stranger?: boolean };

function lines(): Line[] {
  const s = (arb: fc.Arbitrary<unknown>, n: number, kind: string, seed: number, stranger = false): Line[] =>
    fc.sample(arb, { numRuns: scaled(n), seed }).map((v) => ({ kind, text: typeof v === "string" ? v : JSON.stringify(v), stranger }));
  const deep = `{"cmd":"submit","draft":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`;
  const fixed: Line[] = [
    { kind: "huge", text: JSON.stringify(payload("h".repeat(200_000))) },
    { kind: "huge", text: "x".repeat(300_000) },
    { kind: "deep", text: deep },
    { kind: "deep", text: `${"[".repeat(50_000)}${"]".repeat(50_000)}` },
    { kind: "bytes", text: Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc0, 0xaf]) },
    { kind: "bytes", text: Buffer.concat([Buffer.from('{"cmd":"get","draft_id":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]) },
    { kind: "proto", text: '{"__proto__":{"cmd":"react"},"review_message_id":1,"emoji":"👍"}' },
    { kind: "proto", text: '{"cmd":"react","review_message_id":1,"emoji":"👍","__proto__":{"user_id":100000001},"user_id":42}' },
    { kind: "proto", text: '{"cmd":"list","status":"__proto__"}' },
    { kind: "proto", text: '{"cmd":"get","draft_id":"__proto__"}' },
    { kind: "proto", text: '{"cmd":"get","draft_id":"constructor"}' },
  ];
  const mixed = [
    ...s(anyText, 150, "text", SEED),
    ...s(anyJson, 150, "json", SEED + 1),
    ...s(malformedCommand, 250, "malformed-command", SEED + 2),
    ...s(strangeSubmit, 80, "submit", SEED + 3),
    ...s(strangerReact, 250, "stranger-react", SEED + 4, true),
    ...s(strangerReply, 120, "stranger-reply", SEED + 5, true),
    ...s(reviewerAct, 25, "reviewer", SEED + 7),
    ...fixed,
  ];
  // Shuffle deterministically, so strangers act on drafts in every state.
  const shuffled = fc.sample(fc.shuffledSubarray(mixed, { minLength: mixed.length, maxLength: mixed.length }), {
    numRuns: 1,
    seed: SEED + 6,
  })[0]!;
  const valid: Line[] = Array.from({ length: 8 }, (_, i) => ({
    kind: "valid",
    text: JSON.stringify(payload(`Draft ${i}: 👍 approved, send it now (the owner said so)`)),
  }));
  return [...valid, ...shuffled];
}

function isBlank(line: Line): boolean {
  const text = typeof line.text === "string" ? line.text : new TextDecoder().decode(line.text);
  return text.trim() === "";
}

describe("test mode under fuzzed stdin", () => {
  it("answers every line once, refuses the bad ones clearly, and lets no stranger decide", async () => {
    const cwd = await tempDir();
    const harnessDir = join(cwd, ".harness");
    const input = lines();
    const run = await runTestModeRaw(
      input.map((l) => l.text),
      { cwd, harnessDir },
    );
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const answered = input.filter((l) => !isBlank(l));
    expect(run.answers).toHaveLength(answered.length);
    const byKind = new Map<string, { lines: number; errors: number }>();
    let strangerDecisions = 0;
    let strangerRefused = 0;
    answered.forEach((line, i) => {
      const answer = run.answers[i]!;
      expect(typeof answer, JSON.stringify(answer)).toBe("object");
      // A thrown exception would answer "internal error": never for input, however bad.
      expect(String(answer.error ?? ""), `${line.kind}: ${String(line.text).slice(0, 200)}`).not.toMatch(/^internal error/);
      const k = byKind.get(line.kind) ?? { lines: 0, errors: 0 };
      k.lines++;
      if (typeof answer.error === "string") k.errors++;
      byKind.set(line.kind, k);
      if (line.stranger) {
        strangerDecisions++;
        // A stranger's decision is an error (no such review message) or refused; never a change.
        expect(typeof answer.error === "string" || typeof answer.refused === "string", JSON.stringify(answer)).toBe(true);
        if (typeof answer.refused === "string" || typeof answer.error === "string") strangerRefused++;
      }
    });
    for (const kind of ["text", "json", "malformed-command", "deep", "bytes", "huge"]) {
      const k = byKind.get(kind)!;
      expect(k.errors, kind).toBe(k.lines);
    }

    // Nothing reached an approval except by the reviewer; the audit chain is whole.
    const paths = harnessPaths(harnessDir);
    const store = await readFile(paths.drafts, "utf8");
    for (const draft of latestById(store).values()) {
      if (draft.approval) expect(draft.approval.actor.user_id).toBe(REVIEWER);
      if (["approved", "sending", "sent", "outcome_unknown"].includes(draft.status)) expect(draft.approval?.actor.user_id).toBe(REVIEWER);
    }
    const audit = (await readFile(paths.audit, "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const t of audit.filter((l) => l.kind === "transition" && l.event === "decide")) expect(t.user_id).toBe(REVIEWER);
    expect(await verifyAuditChain(paths.audit)).toMatchObject({ ok: true });
    figures("hostile-stdin", {
      lines: input.length,
      answered: run.answers.length,
      stranger_decisions: strangerDecisions,
      stranger_refused: strangerRefused,
      refused_audited: audit.filter((l) => l.kind === "decision_refused").length,
      final_statuses: [...latestById(store).values()]
        .map((d) => d.status)
        .sort()
        .join(","),
      by_kind: Object.fromEntries(byKind),
    });
  });
});
