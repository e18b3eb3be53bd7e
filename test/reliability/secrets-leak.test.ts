/**
 * Secrets: the bot token and the intake API token never appear in the
 * daemon's logs (debug level, JSON and pretty), its error messages, its HTTP
 * answers, the store, the audit log, the update journal, or what it tells
 * Telegram. The Bot API is reached through a hostile proxy that resets
 * connections and answers with HTML error pages and broken JSON, the errors
 * whose messages carry the request URL (`.../bot<token>/sendMessage`).
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { harnessPaths } from "../../src/app/paths.js";
import { createLogger } from "../../src/log/logger.js";
import { eventually, freshDirs, MAIN_JS } from "../support/daemon-process.js";
import { GROUP, OWNER, payload, STRANGER, useLiveDaemon } from "../support/live-fixture.js";
import { fetchJson } from "./support/hostile-http.js";
import { startHostileProxy, type HostileProxy } from "./support/hostile-proxy.js";
import { cleanup, figures, tempDir } from "./support/hostile-kit.js";
import { clockEnv } from "../support/clock-env.js";

const live = useLiveDaemon();
let proxy: HostileProxy | undefined;

afterAll(async () => {
  await proxy?.stop();
  await cleanup();
});

/** The token and the part after its colon: a leak of either is a leak. */
function secretForms(token: string): string[] {
  const forms = [token, encodeURIComponent(token)];
  const colon = token.indexOf(":");
  if (colon > 0) forms.push(token.slice(colon + 1));
  return forms;
}

function leaks(where: string, text: string, secrets: string[], found: string[]): void {
  for (const s of secrets) if (text.includes(s)) found.push(`${where} contains ${s.slice(0, 6)}…`);
}

async function allFiles(dir: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const name of await readdir(dir)) out.push([name, await readFile(join(dir, name), "utf8").catch(() => "")]);
  return out;
}

describe("secrets never leave the process", () => {
  it("keeps both tokens out of debug logs, errors, HTTP answers, files and Telegram messages, through URL-bearing network errors", async () => {
    const double = live.double;
    proxy = await startHostileProxy(double.url);
    const dirs = await freshDirs();
    // getMe's first attempt is reset: the connect error's message names the URL.
    proxy.fault("getMe", "reset");
    // DRAFT_API_TOKEN empty: the daemon generates its token into HARNESS_DIR/api_token.
    const daemon = await live.start({ TELEGRAM_API_ROOT: proxy.url, DRAFT_API_TOKEN: "", LOG_LEVEL: "debug" }, { dirs });
    const apiToken = (await readFile(harnessPaths(dirs.harnessDir).apiToken, "utf8")).trim();
    expect(apiToken.length).toBeGreaterThanOrEqual(32);
    const auth = { authorization: `Bearer ${apiToken}` };
    const answers: string[] = [];
    const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = auth) => {
      const res = await fetchJson(`${daemon.apiUrl}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      answers.push(`${res.status} ${res.text}`);
      return res;
    };

    // 1. A review post answered by a proxy's HTML page (FetchError: invalid json ... at <url with token>).
    proxy.fault("sendMessage", "html-502");
    const lost = await api("POST", "/drafts", payload("Posted into a 502"));
    expect(lost.status).toBe(201);
    await daemon.waitForLog((l) => l.msg === "could not post the draft for review; it stays queued and is tried again");

    // 2. A draft that goes through, then its send answered by a 502 page after Telegram took it: outcome unknown.
    const a = await api("POST", "/drafts", payload("Maybe delivered", { originating_intent_id: "s2" }));
    const id: string = a.json.draft_id;
    const reviewMessageId = await eventually(
      async () => (await api("GET", `/drafts/${id}`)).json.review_message_id as number | null,
      10_000,
      "posted",
    );
    proxy.fault("sendMessage", "html-502-after-forward", 1, (body) => body.includes(String(GROUP)));
    proxy.fault("editMessageText", "reset");
    double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: OWNER, newEmojis: ["👍"] });
    await eventually(async () => (await api("GET", `/drafts/${id}`)).json.status === "outcome_unknown", 10_000, "outcome unknown");
    await eventually(() => double.messages(OWNER).some((m) => m.text.includes("may or may not have reached")), 10_000, "reviewer told");

    // 3. A button whose answer is reset, and getUpdates calls that fail.
    proxy.fault("answerCallbackQuery", "reset");
    double.injectCallback({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, data: `v1:send:${id}` });
    await daemon.waitForLog((l) => l.msg === "answerCallbackQuery failed");
    proxy.fault("getUpdates", "not-json", 2);
    double.injectReaction({ chatId: OWNER, messageId: reviewMessageId, userId: STRANGER, newEmojis: ["👎"] });
    await eventually(
      async () => (await readFile(harnessPaths(dirs.harnessDir).audit, "utf8")).includes('"emoji":"👎"'),
      15_000,
      "poll recovered",
    );

    // 4. Every API answer, refusals included.
    await api("GET", "/drafts");
    await api("GET", `/drafts/${id}`);
    await api("GET", "/events?after=0");
    await api("GET", "/drafts", undefined, { authorization: "Bearer wrong-token-0000000000" });
    await api("GET", "/drafts", undefined, {});
    await api("POST", "/drafts", { draft_text: 5 });
    await api("GET", `/nope/${apiToken.slice(0, 4)}`);

    await daemon.stop("SIGTERM");
    const stderr = daemon.rawStderr();
    const secrets = [...secretForms(double.token), apiToken];
    const found: string[] = [];
    leaks("daemon stderr", stderr, secrets, found);
    for (const a of answers) leaks("HTTP answer", a, secrets, found);
    for (const [name, text] of await allFiles(dirs.harnessDir)) if (name !== "api_token") leaks(name, text, secrets, found);
    for (const m of double.messages()) leaks(`Telegram message to ${m.chatId}`, m.text, secrets, found);
    expect(found).toEqual([]);

    // The URL-bearing errors did happen and were logged, scrubbed.
    const draft = (await readFile(harnessPaths(dirs.harnessDir).drafts, "utf8"))
      .split("\n")
      .filter((l) => l.includes(id))
      .at(-1)!;
    const reason = String(JSON.parse(draft).reason);
    expect(reason).toMatch(/no answer from Telegram/);
    expect(stderr).toContain("[redacted");
    figures("secrets daemon", {
      faults_served: proxy.served,
      stderr_bytes: stderr.length,
      redactions_in_logs: (stderr.match(/\[redacted/g) ?? []).length,
      http_answers: answers.length,
      files_checked: (await readdir(dirs.harnessDir)).length - 1,
      telegram_messages_checked: double.messages().length,
      leaks: found.length,
      unknown_reason: reason.slice(0, 110),
    });
  });

  it("keeps the token out of pretty logs on a terminal (pino-pretty through a pty)", async () => {
    const d = live.double;
    const p = await startHostileProxy(d.url);
    try {
      const dirs = await freshDirs();
      // The first review post is answered by a proxy's HTML page: an error whose message holds the URL.
      p.fault("sendMessage", "html-502");
      const env = {
        PATH: process.env.PATH ?? "",
        ...clockEnv(),
        HARNESS_DIR: dirs.harnessDir,
        DRAFT_API_PORT: "0",
        DRAFT_API_TOKEN: "pretty-api-token-0123456789abcdef",
        LOG_LEVEL: "debug",
        TELEGRAM_BOT_TOKEN: d.token,
        TELEGRAM_API_ROOT: p.url,
        REVIEW_CHAT_ID: String(OWNER),
      };
      // `script` gives the daemon a terminal, so main.ts picks the pretty transport.
      const child = spawn("script", ["-qfec", `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN_JS)}`, "/dev/null"], {
        cwd: dirs.cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
      child.stderr.setEncoding("utf8").on("data", (c: string) => (out += c));
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      const plain = () => out.replace(/\u001b\[[0-9;]*m/g, "");
      try {
        const running = await eventually(() => /api: "(http:\/\/127\.0\.0\.1:\d+)"/.exec(plain())?.[1], 15_000, "pretty daemon running");
        const res = await fetch(`${running}/drafts`, {
          method: "POST",
          headers: { authorization: `Bearer ${env.DRAFT_API_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(payload("Pretty please")),
        });
        expect(res.status).toBe(201);
        await eventually(() => plain().includes("could not post the draft for review"), 10_000, "post failure logged");
      } catch (err) {
        if (!out.includes("INFO")) {
          console.log(`[reliability] secrets pretty skipped: no terminal via script(1): ${out.slice(0, 300)}`);
          return;
        }
        throw err;
      } finally {
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      }
      // Pretty output (not JSON lines), with the URL-bearing error in it, scrubbed.
      expect(plain()).toMatch(/\] (INFO|ERROR) \(\d+\): /);
      expect(plain()).toContain("invalid json response body at");
      const found: string[] = [];
      leaks("pretty terminal output", out, [...secretForms(d.token), env.DRAFT_API_TOKEN], found);
      expect(found).toEqual([]);
      figures("secrets pretty", {
        terminal_bytes: out.length,
        leaks: found.length,
        redactions: (plain().match(/\[redacted/g) ?? []).length,
      });
    } finally {
      await p.stop();
    }
  });

  it("scrubs tokens from every line the logger writes, whatever carries them (in-process, JSON and pretty)", async () => {
    const token = "7123456789:AAF-abcdefghijklmnopqrstuvwxyz0123456";
    const apiToken = "intake-api-token-fedcba9876543210";
    const dir = await tempDir();
    const results: Record<string, number> = {};
    for (const pretty of [false, true]) {
      const file = join(dir, `log-${pretty}.txt`);
      const fd = openSync(file, "w");
      const log = createLogger({ level: "debug", secrets: [token, apiToken], fd, pretty });
      const url = `https://api.telegram.org/bot${token}/sendMessage`;
      const fetchError = Object.assign(new Error(`request to ${url} failed, reason: socket hang up`), { code: "ECONNRESET" });
      log.error({ err: Object.assign(new Error("Network request for 'sendMessage' failed!"), { error: fetchError }) }, "send failed");
      log.warn({ url, headers: { authorization: `Bearer ${apiToken}` }, nested: { deeper: [token] } }, `token in the message ${token}`);
      log.debug({ token, authorization: apiToken }, "by path");
      log.info({ err: new Error(`GET ${url.replace("sendMessage", "getUpdates")} 502`) }, "poll failed");
      await new Promise<void>((r) => log.flush(() => r()));
      // The pretty transport is a worker thread: its output is complete once the last line is in the file.
      await eventually(async () => (await readFile(file, "utf8")).includes("poll failed"), 5_000, "the last line written");
      closeSync(fd);
      const text = await readFile(file, "utf8");
      expect(text).toContain("send failed");
      const found: string[] = [];
      leaks(pretty ? "pretty" : "json", text, [token, token.slice(token.indexOf(":") + 1), apiToken], found);
      expect(found).toEqual([]);
      results[pretty ? "pretty_lines" : "json_lines"] = text.split("\n").filter((l) => l !== "").length;
    }
    figures("secrets logger", { ...results, leaks: 0 });
  });
});
