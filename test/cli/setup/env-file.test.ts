import { chmod, mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readEnvFile, setEnvValues, writeEnvFile } from "../../../src/cli/setup/env-file.js";

describe("setEnvValues", () => {
  it("replaces an assignment in place and keeps every other line", () => {
    const text = "# comment\nTELEGRAM_BOT_TOKEN=1:abc\nREVIEW_CHAT_ID=1\n\nTAO_SWARM_ENABLED=1\n";
    expect(setEnvValues(text, { REVIEW_CHAT_ID: "-100123" })).toBe(
      "# comment\nTELEGRAM_BOT_TOKEN=1:abc\nREVIEW_CHAT_ID=-100123\n\nTAO_SWARM_ENABLED=1\n",
    );
  });

  it("puts a new value after its commented template line, else at the end", () => {
    const text = "REVIEW_CHAT_ID=\n# Comma-separated ids\n# REVIEWER_USER_IDS=123456789\nLOG_LEVEL=info";
    expect(setEnvValues(text, { REVIEWER_USER_IDS: "42", REVIEW_THREAD_ID: "7", REVIEW_CHAT_ID: "42" })).toBe(
      "REVIEW_CHAT_ID=42\n# Comma-separated ids\n# REVIEWER_USER_IDS=123456789\nREVIEWER_USER_IDS=42\nLOG_LEVEL=info\nREVIEW_THREAD_ID=7\n",
    );
    expect(setEnvValues("", { REVIEW_CHAT_ID: "42" })).toBe("REVIEW_CHAT_ID=42\n");
  });

  it("handles `export NAME=` and removes repeated assignments so the value is unambiguous", () => {
    expect(setEnvValues("export REVIEW_CHAT_ID=1\nX=2\nREVIEW_CHAT_ID=3\n", { REVIEW_CHAT_ID: "9" })).toBe("REVIEW_CHAT_ID=9\nX=2\n");
    // A name that merely starts the same is another variable.
    expect(setEnvValues("REVIEW_CHAT_ID_OLD=1\n", { REVIEW_CHAT_ID: "9" })).toBe("REVIEW_CHAT_ID_OLD=1\nREVIEW_CHAT_ID=9\n");
  });
});

describe("writeEnvFile", () => {
  it("replaces the file keeping its mode; a new file is 0600", async () => {
    const dir = await mkdtemp(join(tmpdir(), "env-file-"));
    const path = join(dir, ".env");
    await writeEnvFile(path, "A=1\n");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await chmod(path, 0o640);
    await writeEnvFile(path, "A=2\n");
    expect(await readFile(path, "utf8")).toBe("A=2\n");
    expect((await stat(path)).mode & 0o777).toBe(0o640);
    expect((await readEnvFile(path)).values).toEqual({ A: "2" });
    expect(await readEnvFile(join(dir, "missing"))).toEqual({ exists: false, text: "", values: {} });
  });
});
