import { describe, expect, it } from "vitest";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { auditLines, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

const refusals = async (d: DaemonProcess) => (await auditLines(d.harnessDir)).filter((l) => l.kind === "decision_refused");

describe("a refused update that Telegram delivers again after a restart", () => {
  it("is audited exactly once", async () => {
    await live.start();
    const posted = await live.daemon.request("POST", "/drafts", payload("Only the owner decides"));
    expect(posted.status).toBe(201);
    const reviewMessageId = posted.body.review_message_id as number;

    // getUpdates fails from now on, so the daemon can never confirm what it handles.
    live.double.failNext("getUpdates", { error_code: 502, description: "Bad Gateway", times: 10_000 });
    const stranger = live.double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["👍"] });
    await eventually(async () => (await refusals(live.daemon)).length === 1, 10_000, "the stranger's 👍 is refused and audited");
    await eventually(() => live.double.pendingUpdates().some((u) => u.update_id === stranger.update.update_id), 5_000, "still unconfirmed");

    // A crash before the confirmation: Telegram delivers the same update again to the next start.
    await live.daemon.stop("SIGKILL");
    live.double.clearFaults();
    await live.restart();
    await eventually(() => live.double.pendingUpdates().length === 0, 10_000, "the redelivered update is confirmed");

    // A later refusal on the same review message is handled after the redelivered one (one message, one queue).
    const later = live.double.injectReaction({
      chatId: OWNER,
      messageId: reviewMessageId,
      userId: STRANGER,
      newEmojis: ["👍"],
      oldEmojis: [],
    });
    await eventually(
      async () => (await refusals(live.daemon)).some((l) => l.update_id === later.update.update_id),
      10_000,
      "the later refusal",
    );
    const ids = (await refusals(live.daemon)).map((l) => l.update_id);
    expect(ids).toEqual([stranger.update.update_id, later.update.update_id]);
  });
});
