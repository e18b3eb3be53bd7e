import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.js";
import { eventually } from "../support/daemon-process.js";

const SECRET = "supersecret-api-token-0123456789";
const BOT_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
const OTHER_TOKEN = "987654321:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

/** Logs the same lines through a logger on a file and returns what reached the file. */
async function logged(pretty: boolean): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "logger-")), "log.txt");
  const fd = openSync(path, "w");
  const log = createLogger({ level: "info", secrets: [SECRET, BOT_TOKEN], fd, pretty });
  log.info({ token: "by path", url: `https://api.telegram.org/bot${OTHER_TOKEN}/getMe` }, `request with ${SECRET}`);
  log.error({ err: new Error(`fetch https://api.telegram.org/bot${BOT_TOKEN}/getUpdates failed`) }, "network error");
  log.info("the end");
  // The pretty transport writes from a worker thread: wait until the last line is there.
  const text = await eventually(
    async () => {
      const t = await readFile(path, "utf8");
      return t.includes("the end") ? t : null;
    },
    5_000,
    "the log lines",
  );
  closeSync(fd);
  return text;
}

describe("createLogger", () => {
  it.each([false, true])("scrubs secrets and token-shaped strings (pretty: %s)", async (pretty) => {
    const text = await logged(pretty);
    expect(text).toContain("request with [redacted]");
    expect(text).toContain("/bot[redacted-token]/getMe");
    expect(text).toContain("/bot[redacted]/getUpdates");
    for (const s of [SECRET, BOT_TOKEN, OTHER_TOKEN, "by path"]) expect(text).not.toContain(s);
    if (pretty) expect(text).not.toMatch(/^\{/m);
    else expect(JSON.parse(text.split("\n")[0]!)).toMatchObject({ msg: "request with [redacted]", token: "[redacted]" });
  });
});
