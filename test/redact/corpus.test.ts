import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCorpus } from "../../src/redact/corpus.js";
import { findPii } from "../../src/redact/detect.js";
import { PII_KINDS } from "../../src/redact/kinds.js";
import { redact } from "../../src/redact/redact.js";
import { scoreCorpus } from "../../src/redact/score.js";

const entries = parseCorpus(readFileSync(new URL("./corpus.jsonl", import.meta.url), "utf8"));
const score = scoreCorpus(entries, findPii);

describe("the labelled corpus", () => {
  it("is big enough and covers every category", () => {
    expect(entries.length).toBeGreaterThanOrEqual(400);
    expect(entries.filter((e) => e.group === "pii").length).toBeGreaterThanOrEqual(150);
    expect(entries.filter((e) => e.group === "hard-negative").length).toBeGreaterThanOrEqual(150);
    for (const kind of PII_KINDS) {
      const labelled = entries.flatMap((e) => e.expect).filter((e) => e.kind === kind).length;
      expect(labelled, kind).toBeGreaterThanOrEqual(20);
    }
  });

  it("has unique ids and texts", () => {
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => e.text)).size).toBe(entries.length);
  });
});

describe("redactor on the corpus", () => {
  it.each(PII_KINDS.map((kind) => [kind]))("%s: precision and recall are at least 0.98", (kind) => {
    const row = score.rows.find((r) => r.kind === kind);
    expect(row, kind).toBeDefined();
    expect(row?.precision ?? 0, `${kind} precision; ${score.misses.join("; ")}`).toBeGreaterThanOrEqual(0.98);
    expect(row?.recall ?? 0, `${kind} recall; ${score.misses.join("; ")}`).toBeGreaterThanOrEqual(0.98);
  });

  it("finds nothing outside the nine categories", () => {
    expect(score.rows.map((r) => r.kind)).toEqual([...PII_KINDS]);
  });

  it("leaves every PII-free entry untouched, byte for byte", () => {
    const changed = entries
      .filter((e) => e.expect.length === 0)
      .map((e) => ({ id: e.id, before: e.text, after: redact(e.text).text }))
      .filter((c) => c.after !== c.before);
    expect(changed).toEqual([]);
  });

  it("reports removals consistent with the text it returns", () => {
    const count = (text: string, label: string) => text.split(label).length - 1;
    for (const e of entries) {
      const { text, removed } = redact(e.text);
      for (const kind of PII_KINDS) {
        const added = count(text, `[${kind}]`) - count(e.text, `[${kind}]`);
        expect(removed[kind] ?? 0, `${e.id} ${kind}`).toBe(added);
      }
    }
  });
});
