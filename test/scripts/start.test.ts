/**
 * Issue 20, point 9: `npm start` does not rebuild on an installed checkout. The
 * real `npm start` of this checkout (built by the test run's globalSetup) in
 * test mode answers without touching dist/; in a scratch copy of the start
 * script, a missing or older dist/ is built once, a fresh one is not.
 * Issue 27, point 5: its stdout holds only test mode's JSON lines, with or
 * without `--silent`; the build (npm ci's prepare) says on stderr what it does.
 */
import { spawn, spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { draft } from "../support/test-mode-process.js";

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

/**
 * This checkout as npm sees it, in a temp dir without `.env` (npm runs a script in the package's root,
 * so a developer's `.env` there would be read): package.json, .npmrc and the start scripts copied,
 * dist/, node_modules and what the staleness check reads linked to the real ones.
 */
async function checkout(): Promise<string> {
  const dir = await scratch();
  await mkdir(join(dir, "scripts"));
  for (const f of ["package.json", ".npmrc", "scripts/start.mjs", "scripts/build-dist.mjs", "scripts/dist-fresh.mjs"])
    await cp(join(ROOT, f), join(dir, f));
  for (const f of ["dist", "node_modules", "src", "tsconfig.json", "tsconfig.build.json", "scripts/bundle.mjs", "package-lock.json"]) {
    await symlink(join(ROOT, f), join(dir, f));
  }
  return dir;
}

/** What `npm start` printed. */
interface StartRun {
  /** The first stdout line, and how long it took to come. */
  readonly first: string;
  readonly ms: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npm start` (with `--silent` unless told) in `cwd` with `input` on stdin. */
function npmStart(cwd: string, env: Record<string, string>, input: string, silent = true): Promise<StartRun> {
  return new Promise((res, rej) => {
    const started = performance.now();
    const args = silent ? ["start", "--silent"] : ["start"];
    // HOME is the project's temp dir: no user .npmrc, and npm's own logs stay out of the real home.
    const child = spawn("npm", args, { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env } });
    let out = "";
    let err = "";
    let first: { line: string; ms: number } | undefined;
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      if (first === undefined && out.includes("\n")) first = { line: out.split("\n")[0]!, ms: performance.now() - started };
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    child.on("error", rej);
    child.on("exit", () => res({ first: first?.line ?? "", ms: first?.ms ?? Number.NaN, stdout: out, stderr: err }));
    child.stdin.end(input);
  });
}

describe("npm start on an installed checkout", () => {
  it("answers in test mode without building (dist/ untouched)", async () => {
    const dir = await checkout();
    const harness = join(dir, ".harness-try");
    const before = (await stat(join(ROOT, "dist/main.js"))).mtimeMs;
    const run = await npmStart(dir, { TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: harness }, '{"cmd":"get","draft_id":"d_nope"}\n');
    expect(JSON.parse(run.first)).toEqual({ error: expect.stringContaining("d_nope") });
    expect(run.stderr).not.toContain("building");
    expect((await stat(join(ROOT, "dist/main.js"))).mtimeMs).toBe(before);
  });

  it.each([
    ["with --silent", true],
    ["without --silent", false],
  ])("in test mode, %s, prints only one JSON line per input on stdout (npm's banner stays off)", async (_, silent) => {
    const dir = await checkout();
    const env = { TAO_DRAFT_REVIEW_TEST: "1", HARNESS_DIR: join(dir, ".harness-try") };
    const input = [JSON.stringify(draft("Hi Anna, Thursday 10:00 works.")), '{"cmd":"list"}', "not json", '{"cmd":"advance","by":"25h"}'];
    const run = await npmStart(dir, env, `${input.join("\n")}\n`, silent);
    const lines = run.stdout.split("\n");
    expect(lines.pop(), run.stdout).toBe("");
    expect(lines, run.stderr).toHaveLength(input.length);
    const answers = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(answers[0]).toMatchObject({ status: "pending" });
    expect(answers[2]).toEqual({ error: expect.any(String) });
    expect(answers[3]).toMatchObject({ transitions: [expect.objectContaining({ to: "expired" })] });
  });
});

describe("the start script's staleness check", () => {
  /** A project with the start script, a build that counts its runs, and `dist/` as given. */
  async function project(withDist: boolean): Promise<string> {
    const dir = await scratch();
    await mkdir(join(dir, "scripts"), { recursive: true });
    await mkdir(join(dir, "src"), { recursive: true });
    for (const f of ["scripts/start.mjs", "scripts/build-dist.mjs", "scripts/dist-fresh.mjs"]) await cp(join(ROOT, f), join(dir, f));
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
    expect(run.stdout).toBe("built main\n");
    expect(run.stderr).toMatch(/^draft-review: dist\/ is missing; building dist\/ .*\.\.\.\ndraft-review: dist\/ built in \d+ s\.\n$/);
    expect(await builds(dir)).toBe(1);
  });

  it("as npm ci's prepare, says on stderr what it builds and how long it took; nothing on stdout", async () => {
    const dir = await project(false);
    const run = spawnSync(process.execPath, ["scripts/build-dist.mjs"], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: dir },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      /^draft-review: packages installed; building dist\/ \(TypeScript, then esbuild: 10-30 s.*\n.*built in \d+ s\.\n$/,
    );
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
