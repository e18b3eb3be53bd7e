import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { channelsStep, type ChannelStepTalk } from "../../../src/cli/setup/channel-step.js";
import { startEmailDouble } from "../../doubles/email/email-double.js";
import { startLinearDouble } from "../../doubles/linear/index.js";
import { startSlackDouble } from "../../doubles/slack/index.js";
import { freePort } from "../../support/cli-process.js";

// Issue 33 item 3: `draft-review setup` asks for each channel and proves it the way the daemon does at start.

let doubles: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(doubles.map((d) => d.close()));
  doubles = [];
});

async function linear() {
  const d = await startLinearDouble();
  doubles.push(d);
  d.state.workspace.addUser({ name: "Phill Owner", email: "phill@example.com" }, { viewer: true });
  return d;
}

async function slack() {
  const d = await startSlackDouble();
  doubles.push(d);
  return { double: d, token: d.addToken({ userId: "U0OWNER001", userName: "phill" }, "xoxp-test-token-1") };
}

async function smtp() {
  const d = await startEmailDouble();
  doubles.push(d);
  return d;
}

/** A talk that answers `answers` in turn, and records what was said and asked. */
async function talk(over: Partial<ChannelStepTalk>, answers: string[] = []) {
  const dir = await mkdtemp(join(tmpdir(), "channel-step-"));
  const said: string[] = [];
  const asked: string[] = [];
  const hidden: string[] = [];
  const t: ChannelStepTalk = {
    say: (text) => void said.push(text),
    ask: async (q) => {
      asked.push(q);
      return answers.shift() ?? "";
    },
    askHidden: async (q) => {
      asked.push(q);
      hidden.push(q);
      return answers.shift() ?? "";
    },
    interactive: true,
    yes: false,
    noWrite: false,
    env: {},
    envPath: join(dir, ".env"),
    ...over,
  };
  return { t, said, asked, hidden, left: answers };
}

describe("setup's channels step against the service doubles", () => {
  it("proves a channel configured in .env without asking, and names the ones that are not configured", async () => {
    const l = await linear();
    const { t, said, asked } = await talk({ interactive: false });
    await writeFile(t.envPath, `LINEAR_API_KEY=${l.apiKey}\nLINEAR_API_URL=${l.url}\n`);
    const outcomes = await channelsStep(t);
    expect(asked).toEqual([]);
    expect(said).toContain("✓ Linear: the daemon speaks as Phill Owner (phill@example.com) in Acme.");
    expect(said).toContain("Channels not configured: email, slack (optional; run setup on a terminal to add them, or see the README).");
    expect(outcomes[0]).toEqual({
      channel: "linear",
      configured: true,
      speaks_as: "Phill Owner (phill@example.com) in Acme",
      credentials_refused: false,
      problem: null,
      written: false,
    });
    expect(l.state.calls.get("viewer")).toBe(1);
  });

  it("on a terminal: a refused key is asked again, the proven one written (0600) after asking; email proven; Enter skips Slack", async () => {
    const l = await linear();
    const mail = await smtp();
    const { t, said, asked, hidden, left } = await talk({ env: { LINEAR_API_URL: l.url } }, [
      "lin_api_not_the_right_one",
      l.apiKey,
      "", // Write? [Y/n]
      mail.url,
      "Phill <phill@example.com>",
      "y",
      "", // Slack skipped
    ]);
    const outcomes = await channelsStep(t);
    expect(left).toEqual([]);
    expect(said.some((s) => /✗ Linear refused the credentials \(.+\); the daemon would post drafts to linear for review/.test(s))).toBe(
      true,
    );
    expect(said).toContain("  ✓ Linear: the daemon speaks as Phill Owner (phill@example.com) in Acme.");
    expect(said).toContain("  ✓ Email: the daemon speaks as Phill <phill@example.com>.");
    expect(said).toContain("  Slack skipped.");
    // The key, SMTP_URL (it holds the password) and the token are typed without echo; EMAIL_FROM is not.
    expect(hidden.map((q) => q.split(" ")[0])).toEqual(["Linear", "Linear", "SMTP_URL", "Slack"]);
    expect(asked).toContain("EMAIL_FROM (Phill <phill@example.com>): ");
    expect(asked).toContain(`  Write LINEAR_API_KEY to ${t.envPath}? [Y/n] `);
    expect(asked).toContain(`  Write SMTP_URL and EMAIL_FROM to ${t.envPath}? [Y/n] `);
    const written = await readFile(t.envPath, "utf8");
    expect(written).toBe(`LINEAR_API_KEY=${l.apiKey}\nSMTP_URL=${mail.url}\nEMAIL_FROM=Phill <phill@example.com>\n`);
    expect((await stat(t.envPath)).mode & 0o777).toBe(0o600);
    expect(outcomes.map((o) => [o.channel, o.configured, o.written])).toEqual([
      ["linear", true, true],
      ["email", true, true],
      ["slack", false, false],
    ]);
    // The secrets are never said back.
    expect(said.join("\n")).not.toContain(l.apiKey);
    expect(said.join("\n")).not.toContain(mail.pass);
  });

  it("a token of the wrong shape is refused naming the variable, before any call; --yes writes the right one without asking", async () => {
    const s = await slack();
    const { t, said, asked } = await talk({ yes: true, env: { SLACK_API_URL: s.double.url } }, ["", "", "xoxq-nope", s.token]);
    const outcomes = await channelsStep(t);
    expect(said.some((line) => line.startsWith("  ✗ Slack: SLACK_TOKEN is not a Slack user token (xoxp-…) or bot token (xoxb-…)"))).toBe(
      true,
    );
    expect(said.find((line) => line.startsWith("  ✓ Slack: the daemon speaks as phill in "))).toMatch(/\(as you\)\.$/);
    expect(asked.filter((q) => q.includes("Write"))).toEqual([]);
    // Where the token comes from, with every scope the channel uses.
    expect(said.find((line) => line.startsWith("Slack: a user token"))).toContain("scopes chat:write, channels:read, groups:read");
    expect(await readFile(t.envPath, "utf8")).toBe(`SLACK_TOKEN=${s.token}\n`);
    expect(outcomes[2]).toMatchObject({ channel: "slack", configured: true, written: true });
    expect(s.double.callCount("auth.test")).toBe(1);
  });

  it("refused SMTP credentials are asked again; an unreachable server is written only when the person says yes", async () => {
    const mail = await smtp();
    mail.refuseAuth(535, "5.7.8 Authentication credentials invalid");
    const closed = `smtp://user:pass@127.0.0.1:${await freePort()}`;
    const { t, said, asked } = await talk({}, ["", mail.url, "phill@example.com", closed, "phill@example.com", ""]);
    const outcomes = await channelsStep(t);
    expect(said.some((s) => s.startsWith("  ✗ Email refused the credentials (") && s.includes("535"))).toBe(true);
    expect(said.some((s) => s.startsWith("  ⚠️ Email could not be reached ("))).toBe(true);
    expect(asked).toContain(`  Email was not reached; write SMTP_URL and EMAIL_FROM to ${t.envPath} anyway? [y/N] `);
    await expect(readFile(t.envPath, "utf8")).rejects.toThrow();
    expect(outcomes[1]).toMatchObject({ channel: "email", configured: true, speaks_as: null, credentials_refused: false, written: false });
    expect(said.join("\n")).not.toContain("user:pass");
  });

  it("--no-write proves the typed key and writes nothing, naming the variable only", async () => {
    const l = await linear();
    const { t, said } = await talk({ noWrite: true, env: { LINEAR_API_URL: l.url } }, [l.apiKey, "", ""]);
    await channelsStep(t);
    expect(said).toContain(`  --no-write: ${t.envPath} is left as it is; add LINEAR_API_KEY (as you typed it) yourself.`);
    await expect(readFile(t.envPath, "utf8")).rejects.toThrow();
  });
});

describe("a secret typed on a terminal", () => {
  it("is read in raw mode (no echo), backspaces applied, the terminal restored, then a newline", async () => {
    const { Answers } = await import("../../../src/cli/setup/answers.js");
    const modes: boolean[] = [];
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (raw: boolean) => void modes.push(raw) });
    const answers = new Answers(stdin);
    let newlines = 0;
    const line = answers.nextHidden(() => newlines++);
    stdin.write("lin_api_x\u007fy\r");
    expect(await line).toBe("lin_api_y");
    expect(modes).toEqual([true, false]);
    expect(newlines).toBe(1);
    // An ordinary answer after it is read as typed, without raw mode.
    const next = answers.next();
    stdin.write("y\n");
    expect(await next).toBe("y");
    expect(modes).toEqual([true, false]);
    answers.close();
  });

  it("without a terminal it is the next line as typed", async () => {
    const { Answers } = await import("../../../src/cli/setup/answers.js");
    const stdin = new PassThrough();
    const answers = new Answers(stdin);
    stdin.end("xoxp-token\n");
    expect(await answers.nextHidden(() => undefined)).toBe("xoxp-token");
    answers.close();
  });
});
