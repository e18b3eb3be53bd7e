import type { CliCommand } from "./command.js";
import { auditVerifyCommand } from "./commands/audit-verify.js";
import { getCommand } from "./commands/get.js";
import { listCommand } from "./commands/list.js";
import { reportCommand } from "./commands/report.js";
import { haltCommand, resumeCommand } from "./commands/owner-switch.js";
import { setupCommand } from "./commands/setup.js";
import { statusCommand } from "./commands/status.js";
import { submitCommand } from "./commands/submit.js";

/**
 * Every subcommand, in the order `--help` lists them: a new command is one
 * more entry here.
 */
export const COMMANDS: readonly CliCommand[] = [
  setupCommand,
  submitCommand,
  statusCommand,
  listCommand,
  getCommand,
  reportCommand,
  haltCommand,
  resumeCommand,
  auditVerifyCommand,
];
