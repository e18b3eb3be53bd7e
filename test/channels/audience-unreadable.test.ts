import { describe, expect, it } from "vitest";
import { AUDIENCE_UNREADABLE } from "../../src/channels/channel.js";
import { AUDIENCE_UNREADABLE as LINEAR_UNREADABLE } from "../../src/channels/linear/index.js";
import { AUDIENCE_UNREADABLE as SLACK_UNREADABLE } from "../../src/channels/slack/index.js";

describe("an audience that could not be read", () => {
  it("is given the same confirm reason by every channel, the one the send path reads as no evidence (never sent on it)", () => {
    expect(LINEAR_UNREADABLE).toBe(AUDIENCE_UNREADABLE);
    expect(SLACK_UNREADABLE).toBe(AUDIENCE_UNREADABLE);
  });
});
