import { resolve } from "node:path";
import { harnessPaths } from "../app/paths.js";
import type { CliIo } from "./io.js";

export { CLI_AUDIT_SOURCE } from "../audit/sources.js";

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
