import { describe, expect, it } from "vitest";
import { notifyRoles } from "../../src/drafts/notify-roles.js";

describe("notifyRoles", () => {
  it("is the drafting role alone without a note, or with a note that addresses nobody", () => {
    expect(notifyRoles("Scribe", null)).toEqual(["Scribe"]);
    expect(notifyRoles("Scribe", "Make it warmer")).toEqual(["Scribe"]);
    expect(notifyRoles("CoS", "")).toEqual(["CoS"]);
  });

  it("adds the role a note starts with (name and a colon), after the drafting role", () => {
    expect(notifyRoles("Scribe", "Margot: check the Q2 numbers")).toEqual(["Scribe", "Margot"]);
    expect(notifyRoles("Margot", "CoS: is Friday ok?")).toEqual(["Margot", "CoS"]);
    expect(notifyRoles("Scribe", "  margot : lower case and spaces")).toEqual(["Scribe", "Margot"]);
  });

  it("does not repeat the drafting role, nor take a name inside the text or without a colon", () => {
    expect(notifyRoles("Margot", "Margot: redo the chart")).toEqual(["Margot"]);
    expect(notifyRoles("Scribe", "Ask Margot: she knows")).toEqual(["Scribe"]);
    expect(notifyRoles("Scribe", "Margot check the numbers")).toEqual(["Scribe"]);
    expect(notifyRoles("Scribe", "Bob: who is Bob?")).toEqual(["Scribe"]);
  });
});
