import type { ParseArgsConfig } from "node:util";
import type { CliIo } from "./io.js";

/** The options of a command, in node:util parseArgs' terms. */
export type CommandOptions = NonNullable<ParseArgsConfig["options"]>;

/** A command's parsed arguments. */
export interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * One subcommand. main.ts dispatches on `name` (which may be two words, as in
 * `audit verify`), parses `options` strictly and prints `usage` for --help, so
 * a new command is one more entry in the table of commands.ts.
 */
export interface CliCommand {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The synopsis and its details, printed by `<command> --help`. */
  readonly usage: string;
  /** The command's own exit codes for `--help`, when they differ from the common ones. */
  readonly exitCodes?: string;
  readonly options: CommandOptions;
  /** How many positional arguments it takes. */
  readonly positionals: { readonly min: number; readonly max: number };
  /** Runs the command; resolves with the exit code. A CliFailure ends it with its message and code. */
  run(args: CommandArgs, io: CliIo): Promise<number>;
}
