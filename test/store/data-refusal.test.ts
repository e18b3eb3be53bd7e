import { describe, expect, it } from "vitest";
import { DATA_REFUSAL_EXIT, DataRefusalError } from "../../src/store/data-refusal.js";

describe("DataRefusalError", () => {
  it("names the file, the line when there is one, what is wrong and what to do", () => {
    const e = new DataRefusalError("/h/telegram_drafts.jsonl", 12, "it is older than the audit log", "Restore it from a backup.");
    expect(e.message).toBe("/h/telegram_drafts.jsonl line 12: it is older than the audit log. Restore it from a backup.");
    expect(e.name).toBe("DataRefusalError");
    expect([e.path, e.line, e.problem, e.remedy]).toEqual([
      "/h/telegram_drafts.jsonl",
      12,
      "it is older than the audit log",
      "Restore it from a backup.",
    ]);
    expect(new DataRefusalError("/h/audit_key", null, "it is damaged", "Restore it.").message).toBe(
      "/h/audit_key: it is damaged. Restore it.",
    );
    expect(DATA_REFUSAL_EXIT).toBe(78);
  });
});
