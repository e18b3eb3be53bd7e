import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelegramDouble } from "../telegram-double/index.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, liveDaemon, liveDouble, OWNER, payload, STRANGER } from "../support/live-fixture.js";

let double: TelegramDouble;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  double = await liveDouble();
});

afterEach(async () => {
  await daemon?.stop("SIGKILL");
  daemon = undefined;
  await double.stop();
});

const refusals = async (d: DaemonProcess) => (await auditLines(d.harnessDir)).filter((l) => l.kind === "decision_refused");

describe("a refused update that Telegram delivers again after a restart", () => {
  it("is audited exactly once", async () => {
    daemon = await liveDaemon(double);
    const posted = await daemon.request("POST", "/drafts", payload("Only the owner decides"));
    expect(posted.status).toBe(201);
    const reviewMessageId = posted.body.review_message_id as number;

    // getUpdates fails from now on, so the daemon can never confirm what it handles.
    double.failNext("getUpdates", { error_code: 502, description: "Bad Gateway", times: 10_000 });
    const stranger = double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["👍"] });
    await eventually(async () => (await refusals(daemon!)).length === 1, 10_000, "the stranger's 👍 is refused and audited");
    await eventually(() => double.pendingUpdates().some((u) => u.update_id === stranger.update.update_id), 5_000, "still unconfirmed");

    // A crash before the confirmation: Telegram delivers the same update again to the next start.
    const dirs = { cwd: daemon.cwd, harnessDir: daemon.harnessDir };
    await daemon.stop("SIGKILL");
    double.clearFaults();
    daemon = await liveDaemon(double, {}, dirs);
    await eventually(() => double.pendingUpdates().length === 0, 10_000, "the redelivered update is confirmed");

    // A later refusal on the same review message is handled after the redelivered one (one message, one queue).
    const later = double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["👍"], oldEmojis: [] });
    await eventually(
      async () => (await refusals(daemon!)).some((l) => l.update_id === later.update.update_id),
      10_000,
      "the later refusal",
    );
    const ids = (await refusals(daemon)).map((l) => l.update_id);
    expect(ids).toEqual([stranger.update.update_id, later.update.update_id]);
  });
});
