/**
 * Issue 20, point 9: `npm start` does not rebuild on an installed checkout. The
 * real `npm start` of this checkout (built by the test run's globalSetup) in
 * test mode answers without touching dist/; in a scratch copy of the start
 * script, a missing or older dist/ is built once, a fresh one is not.
 */
import { spawn, spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const made: string[] = [];
afterAll(async () => {
  for (const d of made) await rm(d, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "draft-review-start-"));
  made.push(dir);
  return dir;
}

/** Runs `npm start` in `cwd` with `input` on stdin; resolves with the first stdout line, when it came, and stderr. */
function npmStart(cwd: string, env: Record<string, string>, input: string): Promise<{ first: string; ms: number; stderr: string }> {
  return new Promise((res, rej) => {
    const started = performance.now();
    const child = spawn("npm", ["start", "--silent"], { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } });
    let out = "";
    let err = "";
    let first: { line: string; ms: number } | undefined;
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      if (first === undefined && out.includes("\n")) first = { line: out.split("\n")[0]!, ms: performance.now() - started };
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    child.on("error", rej);
    child.on("exit", () => res({ first: first?.line ?? "", ms: first?.ms ?? Number.NaN, stderr: err }));
    child.stdin.end(input);
  });
}

describe("npm start on an installed checkout", () => {
  it("answers in test mode without building (dist/ untouched)", async () => {
    const harness = join(await scratch(), ".harness");
    const before = (await stat(join(ROOT, "dist/main.js"))).mtimeMs;
    const run = await npmStart(ROOT, { TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: harness }, '{"cmd":"get","draft_id":"d_nope"}\n');
    expect(JSON.parse(run.first)).toEqual({ error: expect.stringContaining("d_nope") });
    expect(run.stderr).not.toContain("building");
    expect((await stat(join(ROOT, "dist/main.js"))).mtimeMs).toBe(before);
  });
});

describe("the start script's staleness check", () => {
  /** A project with the start script, a build that counts its runs, and `dist/` as given. */
  async function project(withDist: boolean): Promise<string> {
    const dir = await scratch();
    await mkdir(join(dir, "scripts"), { recursive: true });
    await mkdir(join(dir, "src"), { recursive: true });
    await cp(join(ROOT, "scripts/start.mjs"), join(dir, "scripts/start.mjs"));
    await writeFile(join(dir, "src/main.ts"), "export {};\n");
    const build =
      "mkdir -p dist/cli && echo 'console.log(\"built main\")' > dist/main.js && echo '' > dist/cli/main.js && echo run >> builds.txt";
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "p", type: "module", scripts: { build, start: "node scripts/start.mjs" } }),
    );
    if (withDist) spawnSync("sh", ["-c", build.replace(" && echo run >> builds.txt", "")], { cwd: dir });
    return dir;
  }
  const builds = async (dir: string) =>
    (await readFile(join(dir, "builds.txt"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;

  it("builds when dist/ is missing, then runs it; the build's output stays off stdout", async () => {
    const dir = await project(false);
    const run = await npmStart(dir, {}, "");
    expect(run.first).toBe("built main");
    expect(await builds(dir)).toBe(1);
  });

  it("does not build when dist/ is newer than the sources, and builds once they change", async () => {
    const dir = await project(true);
    // Times relative to dist/'s own mtime (the file system's clock), not Date.now(): under libfaketime the two differ.
    const built = (await stat(join(dir, "dist/main.js"))).mtimeMs;
    const old = new Date(built - 60_000);
    await utimes(join(dir, "src/main.ts"), old, old);
    expect((await npmStart(dir, {}, "")).first).toBe("built main");
    expect(await builds(dir)).toBe(0);
    await writeFile(join(dir, "src/main.ts"), "export const changed = 1;\n");
    const future = new Date(built + 60_000);
    await utimes(join(dir, "src/main.ts"), future, future);
    await npmStart(dir, {}, "");
    expect(await builds(dir)).toBe(1);
  });
});
