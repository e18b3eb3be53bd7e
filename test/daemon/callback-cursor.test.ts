/**
 * Issue 28 point 4, through the real daemon: a callback cursor ahead of the
 * events feed (an older audit log, a cursor file from elsewhere) is clamped
 * to the feed's end, with a warning in the log, `GET /status` and
 * `/healthz`, and the events after it are delivered; `GET /events` past the
 * end answers the feed's real `last_seq`, never the client's own number.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { startCallbackReceiver } from "../support/callback-receiver.js";
import { eventually, freshDirs } from "../support/daemon-process.js";
import { OWNER, payload, submitPending, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();
const SECRET = "s".repeat(32);

describe("the callback cursor cannot skip", () => {
  it("a cursor ahead of the feed is clamped to its end, warned about, and the next events are POSTed", async () => {
    const receiver = await startCallbackReceiver();
    const dirs = await freshDirs();
    const env = { CALLBACK_URL: receiver.url, CALLBACK_SECRET: SECRET };
    const first = await live.start(env, { dirs });
    await submitPending(first, payload("Before the cursor jumps"));
    await receiver.waitFor(2);
    await first.stop("SIGTERM");
    const cursorPath = harnessPaths(dirs.harnessDir).callbackCursor;
    const feedEnd = JSON.parse(await readFile(cursorPath, "utf8")).acked_seq as number;
    expect(feedEnd).toBeGreaterThan(0);
    await writeFile(cursorPath, `${JSON.stringify({ acked_seq: 500 })}\n`);

    const d = await live.start(env, { dirs });
    const warned = await d.waitForLog((l) => String(l.msg).startsWith("the callback cursor was ahead of the events feed"));
    expect(warned).toMatchObject({ acked_seq: 500, path: cursorPath });
    const end = warned.feed_last_seq as number;
    expect(end).toBeGreaterThanOrEqual(feedEnd);
    expect(end).toBeLessThan(500);
    expect(JSON.parse(await readFile(cursorPath, "utf8")).acked_seq).toBe(end);
    const health = (await fetch(`${d.apiUrl}/healthz`).then((r) => r.json())) as { ok: boolean; warnings?: string[] };
    expect(health.ok).toBe(true);
    expect(health.warnings).toEqual([
      expect.stringContaining(`said events up to #500 were acknowledged, but the events feed ends at #${end}`),
    ]);

    // New events go out (they were skipped in silence while the cursor stood at 500).
    const before = receiver.received.length;
    const draft = await submitPending(d, payload("After the clamp"));
    await receiver.waitFor(before + 2);
    const got = receiver.received.slice(before).map((c) => JSON.parse(c.body.toString()));
    expect(got.map((e) => [e.draft_id, e.to])).toEqual([
      [draft.draft_id, "queued"],
      [draft.draft_id, "pending"],
    ]);
    expect(got[0].seq).toBeGreaterThan(end);
    const status = await eventually(async () => {
      const body = (await d.request("GET", "/status")).body;
      return body.callbacks.backlog === 0 ? body : null;
    });
    expect(status.callbacks.acked_seq).toBe(got[1].seq);
    expect(status.callbacks.warning).toContain("said events up to #500 were acknowledged");
    // /status in the review chat says it too.
    const seen = live.double.messages(OWNER).length;
    live.double.injectMessage({ chatId: OWNER, userId: OWNER, text: "/status" });
    const text = (await live.reviewChatMessage(seen, /Callbacks to/, "the /status answer")).text;
    expect(text).toContain("⚠️ ");
    expect(text).toContain("said events up to #500 were acknowledged");
    await receiver.stop();
  });

  it("GET /events past the end answers the feed's real last_seq, and from it the next events", async () => {
    const d = await live.start();
    await submitPending(d, payload("One"));
    const all = (await d.request("GET", "/events?after=0")).body;
    const end = all.last_seq as number;
    expect(all.events.length).toBeGreaterThan(0);
    const beyond = (await d.request("GET", "/events?after=999999")).body;
    expect(beyond.events).toEqual([]);
    expect(beyond.last_seq).toBeGreaterThanOrEqual(end);
    expect(beyond.last_seq).toBeLessThan(999999);
    const next = await submitPending(d, payload("Two"));
    const after = (await d.request("GET", `/events?after=${beyond.last_seq}`)).body;
    expect(after.events.map((e: { draft_id: string; to: string }) => [e.draft_id, e.to])).toEqual([
      [next.draft_id, "queued"],
      [next.draft_id, "pending"],
    ]);
  });
});
