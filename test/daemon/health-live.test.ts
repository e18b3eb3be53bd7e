/**
 * The live daemon's /healthz and /status against the Bot API double: another
 * poller (409) makes /healthz answer 503 with the reason until polling works
 * again; a callback receiver that is down shows in GET /status as a backlog
 * with the last error, while drafts are posted and sent as usual.
 */
import { describe, expect, it } from "vitest";
import { startCallbackReceiver } from "../support/callback-receiver.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { GROUP, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

const healthz = async (d: DaemonProcess) => {
  const res = await fetch(`${d.apiUrl}/healthz`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; reasons?: string[] } };
};

describe("live health and callback status", () => {
  it("/healthz answers 503 naming another poller (409) while it lasts, 200 before and after", async () => {
    await live.start();
    expect(await healthz(live.daemon)).toEqual({ status: 200, body: { ok: true } });
    live.double.failNext("getUpdates", {
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      times: 3,
    });
    // An update ends the long poll under way, so the next getUpdates meets the 409.
    live.double.injectMessage({ chatId: STRANGER, userId: STRANGER, text: "hello" });
    const sick = await eventually(
      async () => {
        const h = await healthz(live.daemon);
        return h.status === 503 ? h : null;
      },
      20_000,
      "healthz 503",
    );
    expect(sick.body).toEqual({ ok: false, reasons: [expect.stringMatching(/^another program is polling this bot \(409 Conflict\)/)] });
    // After three refusals the poll goes through; an update makes it answer at once.
    live.double.injectMessage({ chatId: STRANGER, userId: STRANGER, text: "hello again" });
    await eventually(async () => (await healthz(live.daemon)).status === 200, 20_000, "healthz 200 again");
  });

  it("a receiver that is down never holds a draft back, and GET /status shows the backlog and the last error", async () => {
    const receiver = await startCallbackReceiver();
    await receiver.stop();
    await live.start({ CALLBACK_URL: receiver.url, CALLBACK_SECRET: "s".repeat(32), UNDO_WINDOW: "0" });
    const answer = (await live.daemon.request("POST", "/drafts", payload("Sent whatever the receiver does"))).body;
    const reviewId = await eventually(async () => (await live.daemon.request("GET", `/drafts/${answer.draft_id}`)).body.review_message_id);
    live.double.injectReaction({ chatId: OWNER, messageId: reviewId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent");
    await eventually(async () => (await live.daemon.request("GET", `/drafts/${answer.draft_id}`)).body.status === "sent");
    const status = await eventually(
      async () => {
        const body = (await live.daemon.request("GET", "/status")).body;
        return body.callbacks.backlog === 5 && body.callbacks.last_error !== null ? body : null;
      },
      10_000,
      "status shows the backlog",
    );
    expect(status.callbacks).toMatchObject({
      url: receiver.url,
      acked_seq: 0,
      backlog: 5,
      last_error: expect.stringMatching(/ECONNREFUSED/),
    });
    // The receiver comes back: everything arrives, in order, and the backlog drains.
    await receiver.start();
    await eventually(async () => (await live.daemon.request("GET", "/status")).body.callbacks.backlog === 0, 30_000, "backlog drained");
    const seqs = receiver.received.map((c) => JSON.parse(c.body.toString()).seq as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(receiver.received.map((c) => JSON.parse(c.body.toString()).to)).toEqual(["queued", "pending", "approved", "sending", "sent"]);
    await receiver.stop();
  });
});
