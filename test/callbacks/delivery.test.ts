import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CallbackCursorFile } from "../../src/callbacks/cursor-file.js";
import { CallbackDelivery, type CallbackDeliveryOptions } from "../../src/callbacks/delivery.js";
import { verifyCallback } from "../../src/callbacks/signature.js";
import { auditEventFeed } from "../../src/desk/event-feed.js";
import { startCallbackReceiver, type CallbackReceiver } from "../support/callback-receiver.js";
import { openTestCore, submitPosted, type TestCore } from "../support/core.js";

const SECRET = "callback-secret-0123456789";
const open: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** The real core (store, audit log, desk) with its real events feed, and delivery to `receiver` woken by the desk. */
async function setup(receiver: CallbackReceiver, options: Partial<CallbackDeliveryOptions> = {}, existing?: TestCore) {
  const t = existing ?? (await openTestCore());
  if (!existing) open.push(t);
  const delivery = await startDelivery(t, receiver, options);
  return { t, delivery };
}

async function startDelivery(t: TestCore, receiver: CallbackReceiver, options: Partial<CallbackDeliveryOptions> = {}) {
  const delivery = await CallbackDelivery.start({
    url: receiver.url,
    secret: SECRET,
    feed: auditEventFeed(t.core.audit),
    cursor: new CallbackCursorFile(join(t.dir, "callback_cursor.json")),
    clock: t.clock,
    log: pino({ level: "silent" }),
    ...options,
  });
  const off = t.core.desk.onTransition(() => delivery.wake());
  const closer = { close: async () => (off(), await delivery.close()) };
  open.push(closer);
  return delivery;
}

async function receiver(): Promise<CallbackReceiver> {
  const r = await startCallbackReceiver();
  open.push({ close: () => r.stop().catch(() => {}) });
  return r;
}

const seqs = (r: CallbackReceiver) => r.received.map((c) => JSON.parse(c.body.toString()).seq as number);
const cursorOf = async (t: TestCore) => JSON.parse(await readFile(join(t.dir, "callback_cursor.json"), "utf8")).acked_seq as number;

describe("push callbacks", () => {
  it("POSTs every event once, in seq order, signed over the timestamp and the raw body", async () => {
    const r = await receiver();
    const { t, delivery } = await setup(r);
    const a = await submitPosted(t, "First");
    await submitPosted(t, "Second");
    await r.waitFor(4);
    const events = r.received.map((c) => JSON.parse(c.body.toString()));
    expect(events.map((e) => [e.draft_id === a.draft_id, e.from, e.to])).toEqual([
      [true, null, "queued"],
      [true, "queued", "pending"],
      [false, null, "queued"],
      [false, "queued", "pending"],
    ]);
    const s = seqs(r);
    expect([...s].sort((x, y) => x - y)).toEqual(s);
    expect(new Set(s).size).toBe(s.length);
    const nowS = Math.floor(t.clock.now() / 1000);
    for (const c of r.received) {
      expect(c.headers["content-type"]).toBe("application/json");
      expect(c.headers["x-draft-review-timestamp"]).toBe(String(nowS));
      expect(c.headers["x-draft-review-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
      const headers = {
        timestamp: c.headers["x-draft-review-timestamp"] as string,
        signature: c.headers["x-draft-review-signature"] as string,
      };
      expect(verifyCallback(c.body, headers, SECRET, nowS)).toBe(true);
      expect(verifyCallback(c.body, headers, "another-secret-000000", nowS)).toBe(false);
      expect(verifyCallback(Buffer.concat([c.body, Buffer.from(" ")]), headers, SECRET, nowS)).toBe(false);
      // A replay long after the timestamp is refused by the receiver.
      expect(verifyCallback(c.body, headers, SECRET, nowS + 301)).toBe(false);
    }
    expect(events[1]).toMatchObject({ kind: "transition", drafted_by_role: "CoS", originating_intent_id: "i-1", notify_roles: ["CoS"] });
    await expect.poll(() => cursorOf(t)).toBe(s.at(-1));
    expect(await delivery.status()).toMatchObject({ backlog: 0, acked_seq: s.at(-1), delivered: 4, last_error: null });
  });

  it("answers 500 then 200: waits its backoff on the clock, then delivers the same event, and /status shows the error meanwhile", async () => {
    const r = await receiver();
    r.plan({ kind: "status", status: 500, body: "receiver broke" });
    const { t, delivery } = await setup(r);
    await submitPosted(t, "Retry me");
    await r.waitFor(1);
    await expect.poll(async () => (await delivery.status()).last_error).toBe("HTTP 500: receiver broke");
    const during = await delivery.status();
    expect(during.backlog).toBe(2);
    expect(Date.parse(during.next_attempt_at!) - t.clock.now()).toBe(1000);
    // Not a moment before its time: 999 ms on, no timer is due, so nothing was retried.
    await t.clock.advance(999);
    expect(r.received).toHaveLength(1);
    await t.clock.advance(1);
    await r.waitFor(3);
    expect(seqs(r)[0]).toBe(seqs(r)[1]);
    await expect.poll(async () => (await delivery.status()).backlog).toBe(0);
    expect(await delivery.status()).toMatchObject({ last_error: null, next_attempt_at: null, failed_attempts: 1, delivered: 2 });
  });

  it("backs off, doubling, while the receiver is down, and delivers once it listens again", async () => {
    const r = await receiver();
    await r.stop();
    const { t, delivery } = await setup(r);
    await submitPosted(t, "Nobody listens");
    await expect.poll(async () => (await delivery.status()).last_error ?? "").toMatch(/ECONNREFUSED/);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await delivery.status();
      const wait = Date.parse(s.next_attempt_at!) - t.clock.now();
      waits.push(wait);
      await t.clock.advance(wait);
      await expect.poll(async () => (await delivery.status()).failed_attempts).toBe(i + 2);
    }
    expect(waits).toEqual([1000, 2000, 4000]);
    await r.start();
    await t.clock.advance(8000);
    await r.waitFor(2);
    expect(r.received.map((c) => JSON.parse(c.body.toString()).to)).toEqual(["queued", "pending"]);
    await expect.poll(async () => (await delivery.status()).backlog).toBe(0);
  });

  it("cuts a receiver that never answers at the timeout (on the clock) and one that answers without end", async () => {
    const r = await receiver();
    r.plan({ kind: "hang" }, { kind: "endless" }, { kind: "reset" });
    const { t, delivery } = await setup(r, { timeoutMs: 5000 });
    await submitPosted(t, "Slow receiver");
    await r.waitFor(1);
    // The desk is not held: decisions and sends go on while the receiver hangs.
    expect(t.core.desk.list()[0]!.status).toBe("pending");
    await t.clock.advance(5000);
    await expect.poll(async () => (await delivery.status()).last_error).toBe("no answer within 5000 ms");
    await t.clock.advance(1000);
    await r.waitFor(2);
    await expect.poll(async () => (await delivery.status()).last_error ?? "").toMatch(/^HTTP 500: x{10}/);
    await t.clock.advance(2000);
    await r.waitFor(3);
    await expect.poll(async () => (await delivery.status()).failed_attempts).toBe(3);
    await t.clock.advance(4000);
    await r.waitFor(5);
    expect(
      seqs(r)
        .slice(0, 4)
        .every((s) => s === seqs(r)[0]),
    ).toBe(true);
    await expect.poll(async () => (await delivery.status()).backlog).toBe(0);
  });

  it("honours a receiver's Retry-After", async () => {
    const r = await receiver();
    r.plan({ kind: "status", status: 503, headers: { "retry-after": "30" } });
    const { t, delivery } = await setup(r);
    await submitPosted(t, "Busy receiver");
    await expect.poll(async () => (await delivery.status()).next_attempt_at).not.toBeNull();
    expect(Date.parse((await delivery.status()).next_attempt_at!) - t.clock.now()).toBe(30_000);
  });

  it("resumes after a restart from the last acknowledged event: nothing skipped, nothing acknowledged sent again", async () => {
    const r = await receiver();
    const first = await setup(r);
    const t = first.t;
    await submitPosted(t, "Before the restart");
    await r.waitFor(2);
    await expect.poll(async () => (await first.delivery.status()).backlog).toBe(0);
    await first.delivery.close();
    // While delivery is stopped the desk goes on; the receiver restarts too.
    await r.stop();
    await submitPosted(t, "While stopped");
    await r.start();
    const again = await startDelivery(t, r);
    await r.waitFor(4);
    await expect.poll(async () => (await again.status()).backlog).toBe(0);
    const s = seqs(r);
    expect(s).toHaveLength(4);
    expect(new Set(s).size).toBe(4);
    expect([...s].sort((x, y) => x - y)).toEqual(s);
    expect(await cursorOf(t)).toBe(s[3]);
  });
});
