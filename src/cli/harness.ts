import { resolve } from "node:path";
import { harnessPaths } from "../app/paths.js";
import type { CliIo } from "./io.js";

/** The `source` of the audit lines the CLI writes: its own hash chain, so the daemon's stays intact. */
export const CLI_AUDIT_SOURCE = "draft-review-cli";

/**
 * The daemon's files as the CLI finds them: HARNESS_DIR from the environment
 * or `.env` (default `.harness`), relative to the working directory, as the
 * daemon started there resolves it.
 */
export function cliHarness(io: CliIo) {
  const dir = resolve(io.cwd, io.env.HARNESS_DIR?.trim() || ".harness");
  return { dir, ...harnessPaths(dir), envFile: resolve(io.cwd, ".env") };
}

/** Logs of the files the CLI opens (the audit log warns about torn lines): one line on stderr each. */
export function cliFileLog(io: CliIo) {
  const say = (_obj: object, msg: string) => void io.stderr.write(`draft-review: ${msg}\n`);
  return { info: () => {}, warn: say };
}
