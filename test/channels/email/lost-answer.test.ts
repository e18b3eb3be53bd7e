/**
 * The email channel's send when the answer is lost after the message data
 * (the connection drops, or the final answer does not come in time): unknown,
 * naming the Message-ID, after exactly one attempt; findSent cannot tell.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmailChannel, type EmailConfig } from "../../../src/channels/email/index.js";
import { type EmailDouble, startEmailDouble } from "../../doubles/email/email-double.js";
import { configFor, destination, reference } from "./fixtures.js";

const startedAt = Date.now();
const now = () => startedAt;
let double: EmailDouble;

beforeEach(async () => {
  double = await startEmailDouble();
});
afterEach(async () => {
  await double.close();
});

function channel(config: EmailConfig = configFor(double.url), extra: { replyTimeoutMs?: number } = {}) {
  return createEmailChannel({ config, now, ...extra });
}

describe("an answer lost after the data", () => {
  it("is unknown naming the Message-ID when the connection drops before the 250; one connection, one DATA", async () => {
    double.dropNextAfterData();
    const ch = channel();
    const outcome = await ch.send(destination(), "did it arrive?", reference(15));
    expect(outcome.kind).toBe("unknown");
    expect(outcome.kind === "unknown" && outcome.reason).toContain("<f3c1e2a0-0000-4000-8000-000000000015@example.com>");
    expect(double.state.messages).toHaveLength(1);
    expect(double.state.messages[0]!.lostAnswer).toBe(true);
    expect(double.state.calls).toMatchObject({ connect: 1, mail: 1, data: 1 });
    const lookup = await ch.findSent(destination(), reference(15));
    expect(lookup.kind).toBe("unknown");
    expect(lookup.kind === "unknown" && lookup.reason).toMatch(
      /^email cannot be looked up: .*<f3c1e2a0-0000-4000-8000-000000000015@example\.com>/,
    );
  });

  it("is unknown when the final answer does not come in time", async () => {
    const held = double.holdNext();
    const outcome = await channel(configFor(double.url), { replyTimeoutMs: 1000 }).send(destination(), "slow", reference(16));
    await held.received;
    expect(outcome.kind).toBe("unknown");
    expect(outcome.kind === "unknown" && outcome.reason).toContain("no answer in time");
    held.release();
  });

  it("is ok when a held answer is released in time", async () => {
    const held = double.holdNext();
    const sending = channel().send(destination(), "patience", reference(17));
    await held.received;
    expect(double.state.messages).toHaveLength(1);
    held.release();
    expect((await sending).kind).toBe("ok");
  });
});
