import { describe, expect, it } from "vitest";
import type { Actor, DraftRecord } from "../../src/drafts/record.js";
import { reactionUndoRefused } from "../../src/reactions/reaction-undo.js";
import { draftIn } from "../support/drafts.js";

const OWNER = 5550001;
const OTHER = 5550002;

/** A reaction taken away by `userId`: its emoji, and who. */
function removed(emoji: string, userId = OWNER): Actor {
  return { user_id: userId, channel: "reaction", emoji, update_id: 7 };
}

/** A revise decided by `userId`. */
function revised(userId = OWNER): DraftRecord {
  return draftIn("revise", { decided_by: { user_id: userId, channel: "reaction", emoji: "👎", update_id: 1 } } as Partial<DraftRecord>);
}

describe("what a reaction taken away undoes", () => {
  it("undoes a revise when it is a 👎 taken away by whoever made the revise", () => {
    expect(reactionUndoRefused(revised(), removed("👎"))).toBeNull();
  });

  it("undoes nothing when another reviewer made the decision", () => {
    expect(reactionUndoRefused(revised(OTHER), removed("👎"))).toBe("not_your_decision");
  });

  it("undoes nothing of another kind: a 👍 taken away after a note replaced its approval with a revise", () => {
    expect(reactionUndoRefused(revised(), removed("👍"))).toBe("not_that_decision");
  });
});
