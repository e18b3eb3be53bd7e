import type { CliCommand } from "./command.js";
import { getCommand } from "./commands/get.js";
import { listCommand } from "./commands/list.js";
import { submitCommand } from "./commands/submit.js";

/**
 * Every subcommand, in the order `--help` lists them. Later commands (status,
 * halt, resume, audit verify, setup) are one more entry here.
 */
export const COMMANDS: readonly CliCommand[] = [submitCommand, getCommand, listCommand];
