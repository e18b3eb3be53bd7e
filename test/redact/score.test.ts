import { describe, expect, it } from "vitest";
import { parseCorpus, type CorpusEntry } from "../../src/redact/corpus.js";
import { scoreCorpus } from "../../src/redact/score.js";

const entries: CorpusEntry[] = [
  { id: "p1", group: "pii", text: "mail a@b.co now", expect: [{ kind: "email", value: "a@b.co", start: 5 }] },
  { id: "h1", group: "hard-negative", text: "v1.2.3", expect: [] },
];

describe("scoreCorpus", () => {
  it("counts an exact span as a true positive", () => {
    const s = scoreCorpus(entries, (t) => (t.startsWith("mail") ? [{ kind: "email", start: 5, end: 11 }] : []));
    expect(s.rows.find((r) => r.kind === "email")).toMatchObject({ tp: 1, fp: 0, fn: 0, precision: 1, recall: 1 });
    expect(s.touchedNegatives).toEqual([]);
  });

  it("counts a shifted span as one false positive and one miss, unless matching by overlap", () => {
    const find = (t: string) => (t.startsWith("mail") ? [{ kind: "email", start: 4, end: 11 }] : []);
    expect(scoreCorpus(entries, find).rows.find((r) => r.kind === "email")).toMatchObject({ tp: 0, fp: 1, fn: 1 });
    expect(scoreCorpus(entries, find, "overlap").rows.find((r) => r.kind === "email")).toMatchObject({ tp: 1 });
  });

  it("scores unknown kinds as `other` and notes touched negatives", () => {
    const s = scoreCorpus(entries, (t) => (t === "v1.2.3" ? [{ kind: "version", start: 0, end: 6 }] : []));
    expect(s.rows.at(-1)).toMatchObject({ kind: "other", fp: 1 });
    expect(s.touchedNegatives).toEqual(["h1"]);
  });
});

describe("parseCorpus", () => {
  it("rejects a value that is not at its start offset", () => {
    const line = JSON.stringify({ id: "x", group: "pii", text: "a@b.co", expect: [{ kind: "email", value: "a@b.co", start: 1 }] });
    expect(() => parseCorpus(line)).toThrow(/not at 1/);
  });
});
