import { request } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { STATUSES } from "../../src/drafts/status.js";
import { MAX_BODY_BYTES } from "../../src/http/body.js";
import type { FeedEvent } from "../../src/drafts/feed-event.js";
import { api, closeServersAfterEach, start, TOKEN } from "./api-helpers.js";
import { payload } from "./memory-core.js";

closeServersAfterEach();

describe("POST /drafts", () => {
  it("201 for a new draft, with the synchronous answer", async () => {
    const { server, core } = await start();
    const a = await api(server, "POST", "/drafts", { body: payload() });
    expect(a.status).toBe(201);
    expect(a.json).toEqual({ draft_id: expect.stringMatching(/^d_/), review_message_id: expect.any(Number), status: "pending" });
    expect(core.desk.get(a.json.draft_id)?.status).toBe("pending");
  });

  it("200 for an idempotent replay, with the same draft and nothing new posted", async () => {
    const { server, core } = await start();
    const first = await api(server, "POST", "/drafts", { body: payload({ idempotency_key: "k1" }) });
    const again = await api(server, "POST", "/drafts", { body: payload({ idempotency_key: "k1" }) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(core.desk.list()).toHaveLength(1);
  });

  it("replays concurrent submissions of one key as one draft", async () => {
    const { server, core } = await start();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => api(server, "POST", "/drafts", { body: payload({ idempotency_key: "same" }) })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.json.draft_id)).size).toBe(1);
    expect(core.desk.list()).toHaveLength(1);
  });

  it("409 for the same key with a different payload", async () => {
    const { server, core } = await start();
    await api(server, "POST", "/drafts", { body: payload({ idempotency_key: "k2" }) });
    const a = await api(server, "POST", "/drafts", { body: payload({ idempotency_key: "k2", draft_text: "something else" }) });
    expect(a.status).toBe(409);
    expect(a.json.error).toMatch(/idempotency_key/);
    expect(core.desk.list()).toHaveLength(1);
  });

  it.each([
    ["a missing field", payload({ drafted_by_role: undefined }), "drafted_by_role"],
    ["an unknown field", payload({ surprise: 1 }), "surprise"],
    ["an empty text", payload({ draft_text: "   " }), "draft_text"],
    ["an over-long text", payload({ draft_text: "x".repeat(4097) }), "draft_text"],
    ["a bad role", payload({ drafted_by_role: "Intern" }), "drafted_by_role"],
    ["not an object", [1, 2], "payload"],
  ])("400 for %s, naming the field", async (_name, body, field) => {
    const { server, core } = await start();
    const a = await api(server, "POST", "/drafts", { body });
    expect(a.status).toBe(400);
    expect(a.json.field).toBe(field);
    expect(a.json.error).toContain(field);
    expect(core.desk.list()).toHaveLength(0);
  });

  it("400 for malformed JSON, saying so", async () => {
    const { server } = await start();
    const a = await api(server, "POST", "/drafts", { raw: '{"draft_text": "unterminated' });
    expect(a.status).toBe(400);
    expect(a.json.error).toMatch(/not valid JSON/);
    const empty = await api(server, "POST", "/drafts", { raw: "" });
    expect(empty.status).toBe(400);
    expect(empty.json.error).toMatch(/empty/);
  });

  it("400 for a body that is not UTF-8", async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/drafts`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/UTF-8/);
  });

  it.each([
    ["text/plain", "text/plain"],
    ["form data", "application/x-www-form-urlencoded"],
    ["a non-UTF-8 charset", "application/json; charset=latin1"],
  ])("415 for %s", async (_name, type) => {
    const { server } = await start();
    const a = await api(server, "POST", "/drafts", { raw: JSON.stringify(payload()), headers: { "content-type": type } });
    expect(a.status).toBe(415);
    expect(a.json.error).toMatch(/application\/json/);
  });

  it("accepts application/json with a UTF-8 charset", async () => {
    const { server } = await start();
    const a = await api(server, "POST", "/drafts", { body: payload(), headers: { "content-type": "Application/JSON; charset=UTF-8" } });
    expect(a.status).toBe(201);
  });

  it("415 when Content-Type is missing", async () => {
    const { server } = await start();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/drafts`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end(JSON.stringify(payload()));
    });
    expect(status).toBe(415);
  });

  it("413 for a declared Content-Length over 64 KiB (the body read and discarded, never kept)", async () => {
    const { server } = await start();
    const a = await api(server, "POST", "/drafts", { raw: JSON.stringify(payload({ draft_text: "x".repeat(MAX_BODY_BYTES) })) });
    expect(a.status).toBe(413);
    expect(a.json.error).toMatch(/larger than 65536 bytes/);
  });

  it("413 for a chunked body past the limit that never ends, once the discard window is over", async () => {
    const { server } = await start();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/drafts`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", (err) => reject(err));
      // 80 KiB in 1 KiB chunks and never end(): only a server that checks while streaming answers.
      for (let i = 0; i < 80; i++) req.write("x".repeat(1024));
    });
    expect(status).toBe(413);
  });

  it("a body of exactly the limit is read (and refused only for what it says)", async () => {
    const { server } = await start();
    const text = JSON.stringify(payload());
    const a = await api(server, "POST", "/drafts", { raw: text + " ".repeat(MAX_BODY_BYTES - Buffer.byteLength(text)) });
    expect(a.status).toBe(201);
  });

  it("500 with a plain message when the intake throws, logged, and the server carries on", async () => {
    const { server, log } = await start({
      intake: {
        submit: async () => {
          throw new Error("disk on fire");
        },
      },
    });
    const a = await api(server, "POST", "/drafts", { body: payload() });
    expect(a.status).toBe(500);
    expect(a.json).toEqual({ error: "internal error" });
    expect(log.lines.filter((l) => l.level === "error")).toHaveLength(1);
    expect(log.text()).toContain("disk on fire");
    expect((await api(server, "GET", "/healthz")).status).toBe(200);
  });

  it("survives a client that hangs up mid-body", async () => {
    const { server, log, core } = await start();
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, "127.0.0.1", () => {
        socket.write(
          `POST /drafts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"draft_text":`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await expect.poll(() => log.lines.some((l) => (l.obj as { status?: unknown }).status === "aborted")).toBe(true);
    expect((await api(server, "GET", "/healthz")).status).toBe(200);
    expect(core.desk.list()).toHaveLength(0);
  });
});

describe("GET /drafts/<draft_id>", () => {
  it("answers the current record", async () => {
    const { server } = await start();
    const created = await api(server, "POST", "/drafts", { body: payload() });
    const a = await api(server, "GET", `/drafts/${created.json.draft_id}`);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ draft_id: created.json.draft_id, status: "pending", draft_text: "Hello from the swarm" });
  });

  it.each(["/drafts/d_nope", "/drafts/%E0%A4%A"])("404 for %s", async (path) => {
    const { server } = await start();
    const a = await api(server, "GET", path);
    expect(a.status).toBe(404);
    expect(a.json.error).toBeTypeOf("string");
  });
});

describe("GET /drafts?status=", () => {
  it("lists the drafts in a status, or all", async () => {
    const { server, core } = await start();
    const one = await api(server, "POST", "/drafts", { body: payload({ originating_intent_id: "a" }) });
    await api(server, "POST", "/drafts", { body: payload({ originating_intent_id: "b" }) });
    await core.revise(one.json.review_message_id);
    const pending = await api(server, "GET", "/drafts?status=pending");
    expect(pending.status).toBe(200);
    expect(pending.json.drafts.map((d: { originating_intent_id: string }) => d.originating_intent_id)).toEqual(["b"]);
    const revise = await api(server, "GET", "/drafts?status=revise");
    expect(revise.json.drafts.map((d: { draft_id: string }) => d.draft_id)).toEqual([one.json.draft_id]);
    expect((await api(server, "GET", "/drafts")).json.drafts).toHaveLength(2);
  });

  it("400 for an unknown status, listing the known ones", async () => {
    const { server } = await start();
    const a = await api(server, "GET", "/drafts?status=approvedd");
    expect(a.status).toBe(400);
    expect(a.json.field).toBe("status");
    for (const s of STATUSES) expect(a.json.error).toContain(s);
  });
});

describe("GET /events", () => {
  it("answers transitions after the cursor, in order, with last_seq", async () => {
    const { server } = await start();
    await api(server, "POST", "/drafts", { body: payload() });
    const all = await api(server, "GET", "/events");
    expect(all.status).toBe(200);
    expect(all.json.events.map((e: FeedEvent) => [e.seq, e.from, e.to])).toEqual([
      [1, null, "queued"],
      [2, "queued", "pending"],
    ]);
    expect(Object.keys(all.json.events[0]).sort()).toEqual(["at", "draft_id", "from", "seq", "to", "version"]);
    expect(all.json.last_seq).toBe(2);
    const after = await api(server, "GET", "/events?after=2");
    expect(after.json).toEqual({ events: [], last_seq: 2 });
  });

  it("a caller that keeps last_seq never misses nor repeats an event, while drafts keep changing", async () => {
    const { server, core } = await start();
    const seen: FeedEvent[] = [];
    let cursor = 0;
    const poll = async () => {
      const page = await api(server, "GET", `/events?after=${cursor}&limit=3`);
      expect(page.status).toBe(200);
      seen.push(...page.json.events);
      cursor = page.json.last_seq;
    };
    for (let i = 0; i < 8; i++) {
      const created = await api(server, "POST", "/drafts", { body: payload({ originating_intent_id: `i${i}` }) });
      await poll();
      if (i % 2 === 0) await core.revise(created.json.review_message_id);
      await poll();
    }
    for (let i = 0; i < 10; i++) await poll();
    expect(seen.map((e) => e.seq)).toEqual(core.feed.events.map((e) => e.seq));
    expect(seen).toEqual(core.feed.events);
    expect(seen).toHaveLength(8 * 2 + 4);
  });

  it("caps a page at limit", async () => {
    const { server } = await start();
    for (let i = 0; i < 3; i++) await api(server, "POST", "/drafts", { body: payload({ originating_intent_id: `i${i}` }) });
    const a = await api(server, "GET", "/events?after=1&limit=2");
    expect(a.json.events.map((e: FeedEvent) => e.seq)).toEqual([2, 3]);
    expect(a.json.last_seq).toBe(3);
  });

  it.each([
    ["after=-1", "after"],
    ["after=abc", "after"],
    ["after=1.5", "after"],
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
  ])("400 for %s", async (query, field) => {
    const { server } = await start();
    const a = await api(server, "GET", `/events?${query}`);
    expect(a.status).toBe(400);
    expect(a.json.field).toBe(field);
  });

  it("passes limit (default 1000) to the feed", async () => {
    const calls: [number, number][] = [];
    const { server } = await start({ events: { after: (seq, limit) => (calls.push([seq, limit]), { events: [], lastSeq: seq }) } });
    await api(server, "GET", "/events");
    await api(server, "GET", "/events?after=7&limit=1000");
    expect(calls).toEqual([
      [0, 1000],
      [7, 1000],
    ]);
  });
});
