import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { DaemonHealth } from "../../src/daemon/health.js";
import { api, closeServersAfterEach, start } from "../http/api-helpers.js";

closeServersAfterEach();

async function health() {
  const clock = new SimulatedClock(Date.parse("2030-01-01T00:00:00Z"));
  const dir = await mkdtemp(join(tmpdir(), "draft-health-"));
  return { clock, dir, health: new DaemonHealth({ clock, harnessDir: dir }) };
}

describe("DaemonHealth", () => {
  it("is ok while the store writes and Telegram answers", async () => {
    const { health: h } = await health();
    h.telegramAnswered();
    expect(await h.check()).toEqual({ ok: true, reasons: [] });
  });

  it("says Telegram is unreachable only once its calls have failed for over a minute", async () => {
    const { clock, health: h } = await health();
    h.telegramFailed(new Error("ECONNREFUSED"), false);
    await clock.advance(60_000);
    h.telegramFailed(new Error("ECONNREFUSED"), false);
    expect((await h.check()).ok).toBe(true);
    await clock.advance(1);
    expect(await h.check()).toEqual({
      ok: false,
      reasons: [expect.stringMatching(/^Telegram has been unreachable since 2030-01-01T00:00:00.000Z \(ECONNREFUSED\)/)],
    });
    h.telegramAnswered();
    expect((await h.check()).ok).toBe(true);
  });

  it("names another poller (409) at once, until a poll answers again", async () => {
    const { health: h } = await health();
    h.telegramFailed(new Error("Conflict"), true);
    expect((await h.check()).reasons).toEqual([expect.stringMatching(/^another program is polling this bot \(409 Conflict\)/)]);
    h.telegramAnswered();
    expect((await h.check()).ok).toBe(true);
  });

  it("says the store cannot write after a failed write, or when a probe write in HARNESS_DIR fails", async () => {
    const { clock, dir, health: h } = await health();
    h.storeFailed("ENOSPC: no space left on device, write");
    expect((await h.check()).reasons).toEqual([
      expect.stringMatching(/^the store cannot write \(ENOSPC: no space left on device, write\)/),
    ]);
    h.storeWritten();
    expect((await h.check()).ok).toBe(true);
    const blocked = new DaemonHealth({ clock, harnessDir: join(dir, "not-a-dir") });
    await writeFile(join(dir, "not-a-dir"), "a file where the directory should be");
    expect((await blocked.check()).reasons).toEqual([expect.stringMatching(/^the store cannot write \(ENOTDIR/)]);
  });
});

describe("GET /healthz and POST /drafts when the daemon cannot work", () => {
  it("answers 503 with the reasons, 200 once they are gone", async () => {
    const { clock, health: h } = await health();
    const { server } = await start({ health: h });
    expect(await api(server, "GET", "/healthz", { token: null })).toMatchObject({ status: 200, json: { ok: true } });
    h.telegramFailed(new Error("Conflict"), true);
    const sick = await api(server, "GET", "/healthz", { token: null });
    expect(sick.status).toBe(503);
    expect(sick.json).toEqual({ ok: false, reasons: [expect.stringContaining("409 Conflict")] });
    h.telegramAnswered();
    await clock.advance(1);
    expect((await api(server, "GET", "/healthz", { token: null })).status).toBe(200);
  });

  it("POST /drafts answers 503 with the cause and Retry-After when the store cannot write, and /healthz says so", async () => {
    const { health: h } = await health();
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const intake = {
      submit: async () => Promise.reject(new Error("could not write 1 record(s) to telegram_drafts.jsonl: ENOSPC", { cause: full })),
    };
    const { server } = await start({ health: h, intake });
    const a = await api(server, "POST", "/drafts", { body: { draft_text: "x" } });
    expect(a.status).toBe(503);
    expect(a.headers.get("retry-after")).toBe("30");
    expect(a.json.error).toMatch(
      /^the draft was not accepted: the store cannot write \(could not write 1 record\(s\) to telegram_drafts.jsonl: ENOSPC\)/,
    );
    expect((await api(server, "GET", "/healthz", { token: null })).status).toBe(503);
    // Anything else the intake throws stays a 500 (a bug, not the disk).
    const { server: other } = await start({ intake: { submit: async () => Promise.reject(new TypeError("bug")) } });
    expect((await api(other, "POST", "/drafts", { body: { draft_text: "x" } })).status).toBe(500);
  });
});
