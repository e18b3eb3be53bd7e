import { describe, expect, it } from "vitest";
import { isYes, planEnvWrite, proposedReviewers } from "../../../src/cli/setup/write-plan.js";

const base = {
  existing: {},
  proposed: { REVIEW_CHAT_ID: "42", REVIEWER_USER_IDS: "42" },
  yes: false,
  noWrite: false,
  interactive: true,
  envPath: "/x/.env",
};

describe("planEnvWrite", () => {
  it("--no-write only prints; --yes writes; equal values change nothing", () => {
    expect(planEnvWrite({ ...base, noWrite: true }).kind).toBe("skip");
    expect(planEnvWrite({ ...base, yes: true })).toEqual({ kind: "write" });
    expect(planEnvWrite({ ...base, existing: { REVIEW_CHAT_ID: "42", REVIEWER_USER_IDS: "42" } })).toEqual({ kind: "unchanged" });
  });

  it("without a terminal and without a flag, does not write and says so", () => {
    const plan = planEnvWrite({ ...base, interactive: false });
    expect(plan).toEqual({ kind: "skip", reason: expect.stringMatching(/^stdin is not a terminal.*--yes/) });
  });

  it("asks Y/n to add, y/N to overwrite (naming the old value)", () => {
    expect(planEnvWrite(base)).toEqual({ kind: "ask", question: "Write these to /x/.env? [Y/n] ", defaultYes: true });
    expect(planEnvWrite({ ...base, existing: { REVIEW_CHAT_ID: "" } })).toMatchObject({ kind: "ask", defaultYes: true });
    const plan = planEnvWrite({ ...base, existing: { REVIEW_CHAT_ID: "7" } });
    expect(plan).toEqual({ kind: "ask", question: "/x/.env already has REVIEW_CHAT_ID=7. Overwrite? [y/N] ", defaultYes: false });
  });
});

describe("isYes and proposedReviewers", () => {
  it("reads answers with their default", () => {
    expect([
      isYes("", true),
      isYes("", false),
      isYes(" Y ", false),
      isYes("yes", false),
      isYes("n", true),
      isYes("whatever", true),
    ]).toEqual([true, false, true, true, false, false]);
  });

  it("keeps an existing list that names the user, else proposes the user alone", () => {
    expect(proposedReviewers("11, 42", 42)).toBe("11,42");
    expect(proposedReviewers("11", 42)).toBe("42");
    expect(proposedReviewers(undefined, 42)).toBe("42");
  });
});
