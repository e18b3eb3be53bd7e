import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startApiServer } from "../../src/http/server.js";
import { api, closeServersAfterEach, start, TOKEN } from "./api-helpers.js";
import { captureLog, memoryCore, payload } from "./memory-core.js";

closeServersAfterEach();

describe("GET /healthz", () => {
  it("answers without a token, as JSON", async () => {
    const { server } = await start();
    const a = await api(server, "GET", "/healthz", { token: null });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ ok: true });
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
  });
});

describe("authorization", () => {
  it.each([
    ["no header", null, undefined],
    ["a wrong token of the same length", randomBytes(32).toString("hex"), undefined],
    ["a shorter token", "abc", undefined],
    ["a longer token", `${TOKEN}x`, undefined],
    ["the token as a prefix", TOKEN.slice(0, 10), undefined],
    ["another scheme", null, `Basic ${TOKEN}`],
    ["Bearer with nothing after it", null, "Bearer "],
  ])("refuses %s with 401 and a challenge", async (_name, token, header) => {
    const { server, core } = await start();
    const a = await api(server, "POST", "/drafts", {
      body: payload(),
      token: header === undefined ? token : null,
      headers: header === undefined ? {} : { authorization: header },
    });
    expect(a.status).toBe(401);
    expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(a.json.error).toMatch(/bearer token/);
    expect(core.desk.list()).toHaveLength(0);
  });

  it("guards every route but /healthz", async () => {
    const { server } = await start();
    for (const path of ["/drafts", "/drafts?status=pending", "/drafts/d_x", "/events"]) {
      expect((await api(server, "GET", path, { token: "wrong-wrong-wrong" })).status).toBe(401);
    }
  });

  it("accepts the scheme in any case", async () => {
    const { server } = await start();
    const a = await api(server, "GET", "/drafts", { token: null, headers: { authorization: `bearer ${TOKEN}` } });
    expect(a.status).toBe(200);
  });

  it("never logs the token or the Authorization header", async () => {
    const { server, log } = await start();
    await api(server, "POST", "/drafts", { body: payload() });
    await api(server, "GET", "/drafts", { token: "x".repeat(40) });
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.text()).not.toContain(TOKEN);
    expect(log.text()).not.toContain("x".repeat(40));
    expect(log.text().toLowerCase()).not.toContain("authorization");
  });
});

describe("routing", () => {
  it.each(["/", "/draft", "/drafts/a/b", "/events/1", "/healthz/"])("404 for %s", async (path) => {
    const { server } = await start();
    const a = await api(server, "GET", path);
    expect(a.status).toBe(404);
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it.each([
    ["DELETE", "/drafts", "POST, GET"],
    ["PUT", "/drafts/d_1", "GET"],
    ["POST", "/events", "GET"],
    ["POST", "/healthz", "GET"],
  ])("405 for %s %s, with Allow", async (method, path, allow) => {
    const { server } = await start();
    const a = await api(server, method, path);
    expect(a.status).toBe(405);
    expect(a.headers.get("allow")).toBe(allow);
    expect(a.json.error).toContain(allow);
  });

  it("logs every request at debug with method, path, status and ms", async () => {
    const { server, log } = await start();
    await api(server, "GET", "/events?after=0");
    await expect.poll(() => log.lines.filter((l) => l.msg === "api request").length).toBe(1);
    const line = log.lines.find((l) => l.msg === "api request")!;
    expect(line.level).toBe("debug");
    expect(line.obj).toEqual({ method: "GET", path: "/events", status: 200, ms: expect.any(Number) });
  });
});

describe("lifecycle", () => {
  it("binds where told and reports its url", async () => {
    const { server } = await start();
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it("refuses a port in use with a message that says what to do", async () => {
    const { server } = await start();
    const core = memoryCore();
    await expect(
      startApiServer({
        host: "127.0.0.1",
        port: server.port,
        token: TOKEN,
        intake: core.intake,
        desk: core.desk,
        events: core.feed,
        log: captureLog(),
      }),
    ).rejects.toThrow(/in use.*DRAFT_API_PORT/);
  });

  it("warns when listening beyond loopback", async () => {
    const { log } = await start({ host: "0.0.0.0" });
    expect(log.lines.some((l) => l.level === "warn" && /plain HTTP/.test(l.msg))).toBe(true);
  });

  it("close() ends kept-alive connections and is idempotent", async () => {
    const { server } = await start();
    await api(server, "GET", "/healthz");
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
