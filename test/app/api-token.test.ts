import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiTokenError, apiTokenPath, readApiTokenForClient, resolveApiToken } from "../../src/app/api-token.js";
import { captureLog } from "../http/memory-core.js";

let root: string;
let dir: string;
const noToken = { api: { token: null } };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "api-token-"));
  dir = join(root, "harness");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("resolveApiToken", () => {
  it("uses DRAFT_API_TOKEN when set, and writes nothing", async () => {
    expect(await resolveApiToken({ api: { token: "from-the-environment-123" } }, dir)).toBe("from-the-environment-123");
    await expect(stat(dir)).rejects.toThrow();
  });

  it("generates 32 random bytes as hex into HARNESS_DIR/api_token, mode 0600, and keeps it", async () => {
    const log = captureLog();
    const token = await resolveApiToken(noToken, dir, log);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await readFile(apiTokenPath(dir), "utf8")).trim()).toBe(token);
    expect((await stat(apiTokenPath(dir))).mode & 0o777).toBe(0o600);
    expect(await resolveApiToken(noToken, dir)).toBe(token);
    expect(await readdir(dir)).toEqual(["api_token"]);
    expect(log.text()).not.toContain(token);
  });

  it("gives every concurrent start the same token", async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => resolveApiToken(noToken, dir)));
    expect(new Set(tokens).size).toBe(1);
    expect((await readFile(apiTokenPath(dir), "utf8")).trim()).toBe(tokens[0]);
    expect(await readdir(dir)).toEqual(["api_token"]);
  });

  it("refuses a token file readable by others (not a warning), and one that is a symbolic link, saying how to fix it", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(apiTokenPath(dir), "an-operator-chosen-token\n");
    await chmod(apiTokenPath(dir), 0o644);
    await expect(resolveApiToken(noToken, dir)).rejects.toThrow(
      /can be read by other users \(mode 0644\).*delete it and restart the daemon/,
    );
    await expect(readApiTokenForClient({ HARNESS_DIR: dir })).rejects.toThrow(
      /can be read by other users.*The daemon refuses this file too/,
    );
    expect((await stat(apiTokenPath(dir))).mode & 0o777).toBe(0o644);
    await rm(apiTokenPath(dir));
    await writeFile(join(root, "elsewhere"), "a-token-someone-else-wrote\n", { mode: 0o600 });
    await symlink(join(root, "elsewhere"), apiTokenPath(dir));
    await expect(resolveApiToken(noToken, dir)).rejects.toThrow(/is a symbolic link/);
    await expect(readApiTokenForClient({ HARNESS_DIR: dir })).rejects.toThrow(/is a symbolic link/);
  });

  it("replaces an empty token file", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(apiTokenPath(dir), "", { mode: 0o600 });
    const token = await resolveApiToken(noToken, dir);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await readFile(apiTokenPath(dir), "utf8")).trim()).toBe(token);
  });

  it("refuses a file with an unusable token, saying what to do", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(apiTokenPath(dir), "short", { mode: 0o600 });
    await expect(resolveApiToken(noToken, dir)).rejects.toThrow(ApiTokenError);
    await expect(resolveApiToken(noToken, dir)).rejects.toThrow(/delete it.*DRAFT_API_TOKEN/);
  });
});

describe("readApiTokenForClient", () => {
  it("prefers DRAFT_API_TOKEN", async () => {
    expect(await readApiTokenForClient({ DRAFT_API_TOKEN: " env-token-0123456789 ", HARNESS_DIR: dir })).toBe("env-token-0123456789");
  });

  it("reads the daemon's file", async () => {
    const token = await resolveApiToken(noToken, dir);
    expect(await readApiTokenForClient({ HARNESS_DIR: dir })).toBe(token);
  });

  it("says to start the daemon once, or set DRAFT_API_TOKEN, when there is neither", async () => {
    const err = await readApiTokenForClient({ HARNESS_DIR: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiTokenError);
    expect((err as Error).message).toMatch(/start the daemon once.*or set DRAFT_API_TOKEN/);
  });
});
