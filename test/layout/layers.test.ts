/**
 * The house's layers, as the README's Layout map states them: each folder of
 * src/ may import only from itself and the folders listed before it. A new
 * import that runs back up fails here, naming the file and the import, so the
 * map stays true as the code grows.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** Bottom to top; `main` is src/main.ts. Keep in the order of the README's Layout. */
const LAYERS = [
  "log",
  "clock",
  "serial",
  "retry",
  "redact",
  "store",
  "config",
  "drafts",
  "channels",
  "audit",
  "callbacks",
  "reactions",
  "business",
  "report",
  "send",
  "owner",
  "desk",
  "http",
  "telegram",
  "app",
  "test-mode",
  "cli",
  "daemon",
  "main",
] as const;

const SRC = resolve(import.meta.dirname, "../../src");
const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

function folderOf(path: string): string {
  const rel = relative(SRC, path).split("/");
  return rel.length === 1 ? "main" : (rel[0] as string);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every import of one src/ folder from another, as "file -> imported file". */
function crossImports(): { from: string; to: string; line: string }[] {
  const out: { from: string; to: string; line: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1] as string);
      if (!target.startsWith(SRC)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) out.push({ from, to, line: `${relative(SRC, file)} imports ${m[1]}` });
    }
  }
  return out;
}

describe("the layers of src/", () => {
  it("names every folder of src/ in LAYERS", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(LAYERS as readonly string[]).includes(f))).toEqual([]);
  });

  it("has every import point down or sideways, never up", () => {
    const rank = (f: string) => (LAYERS as readonly string[]).indexOf(f);
    const upward = crossImports()
      .filter((i) => rank(i.to) > rank(i.from))
      .map((i) => `${i.line} (${i.from} is below ${i.to})`);
    expect(upward).toEqual([]);
  });
});
