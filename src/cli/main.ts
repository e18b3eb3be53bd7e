import { join } from "node:path";
import { parseArgs } from "node:util";
import { config as loadDotenv } from "dotenv";
import { useReviewTimeZone } from "../config/time-zone.js";
import type { CliCommand, CommandOptions } from "./command.js";
import { COMMANDS } from "./commands.js";
import { CliFailure, EXIT, processIo, type CliIo } from "./io.js";
import { printProblem } from "./output.js";

const EXIT_CODES_HELP = [
  "Exit codes:",
  "  0  done (submit: the draft was accepted, new or an idempotent replay)",
  "  2  refused: invalid payload or JSON, idempotency_key reused with another payload,",
  "     payload too large, unknown draft id or status",
  "  1  anything else: the daemon is not running or failed, a wrong API token, a usage error,",
  "     a broken audit chain (audit verify)",
  "  3  setup found the ids, but the review chat needs fixing (the bot cannot post, or is no admin)",
].join("\n");

const ENV_HELP = [
  "Configuration (environment, or .env in the current directory; the environment wins):",
  "  DRAFT_API_HOST, DRAFT_API_PORT   the daemon's API (default 127.0.0.1:8787)",
  "  DRAFT_API_TOKEN                  its bearer token; unset: read from HARNESS_DIR/api_token",
  "  HARNESS_DIR                      the daemon's directory (default .harness)",
  "  TELEGRAM_BOT_TOKEN, TELEGRAM_API_ROOT   setup only: the bot and the Bot API root",
  "  LINEAR_*, SMTP_URL, EMAIL_*, SLACK_*     setup only: the other channels, proven as the daemon proves them",
].join("\n");

/** The top-level help: every command of the table, exit codes and configuration. */
export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: npx draft-review <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `npx draft-review <command> --help` for a command's options.",
    "",
    EXIT_CODES_HELP,
    "",
    ENV_HELP,
    "",
  ].join("\n");
}

/** The command named by the first words of argv (longest name first, so `audit verify` beats `audit`). */
function findCommand(argv: readonly string[]): { command: CliCommand; rest: string[] } | undefined {
  const byLength = [...COMMANDS].sort((a, b) => b.name.split(" ").length - a.name.split(" ").length);
  for (const command of byLength) {
    const words = command.name.split(" ");
    if (words.every((w, i) => argv[i] === w)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

/**
 * The CLI: loads `.env` from `io.cwd` (the environment wins), picks the
 * command from the table in commands.ts, parses its options strictly and runs
 * it. Resolves with the exit code; never throws.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  loadDotenv({ quiet: true, path: join(io.cwd, ".env"), processEnv: io.env });
  useReviewTimeZone(io.env.REVIEW_TIMEZONE);
  const first = argv[0];
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    (first === undefined ? io.stderr : io.stdout).write(usage());
    return first === undefined ? EXIT.failed : EXIT.ok;
  }
  const found = findCommand(argv);
  if (!found) {
    printProblem(io, `unknown command "${first}"; run \`npx draft-review --help\` for the list`);
    return EXIT.failed;
  }
  const { command, rest } = found;
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout.write(`Usage: ${command.usage}\n\n${command.exitCodes ?? EXIT_CODES_HELP}\n`);
    return EXIT.ok;
  }
  try {
    const parsed = parseArgs({
      args: joinSignedValues(rest, command.options),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    const n = parsed.positionals.length;
    if (n < command.positionals.min || n > command.positionals.max) {
      throw new CliFailure(`${command.name} takes ${describeCount(command)}, got ${n}; usage: ${command.usage.split("\n")[0]}`);
    }
    return await command.run({ values: parsed.values, positionals: parsed.positionals }, io);
  } catch (err) {
    return failed(io, command, err);
  }
}

/**
 * `--since -7d` as `--since=-7d`: parseArgs takes a value that starts with a dash for a
 * forgotten value and refuses it as a usage error, but no option is named by a digit, so
 * a string option's value that is a signed number is the value (which the command then
 * judges: a negative duration is out of range, exit 2, naming the limit).
 */
function joinSignedValues(args: readonly string[], options: CommandOptions): string[] {
  const strings = Object.entries(options).filter(([, o]) => o.type === "string");
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (next !== undefined && /^-\d/.test(next) && strings.some(([name]) => arg === `--${name}`)) {
      out.push(`${arg}=${next}`);
      i++;
    } else if (next !== undefined && /^-\d/.test(next) && strings.some(([, o]) => o.short !== undefined && arg === `-${o.short}`)) {
      // A short option takes its value joined: `-s-7d`.
      out.push(`${arg}${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function describeCount(command: CliCommand): string {
  const { min, max } = command.positionals;
  if (max === 0) return "no arguments";
  return min === max ? `${min} argument${min === 1 ? "" : "s"}` : `${min} to ${max} arguments`;
}

function failed(io: CliIo, command: CliCommand, err: unknown): number {
  if (err instanceof CliFailure) {
    printProblem(io, err.message);
    return err.exitCode;
  }
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
    printProblem(io, `${(err as Error).message}; usage: ${command.usage.split("\n")[0]}`);
    return EXIT.failed;
  }
  printProblem(io, `${command.name} stopped by an unexpected error (a bug; please report it): ${(err as Error)?.stack ?? String(err)}`);
  return EXIT.failed;
}
