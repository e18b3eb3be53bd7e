import type { CliCommand } from "../command.js";
import { CliFailure } from "../io.js";

const DEFAULT_TIMEOUT_SECONDS = 300;
const DEFAULT_REACTION_WAIT_SECONDS = 60;

/**
 * `draft-review setup`: finds REVIEW_CHAT_ID and REVIEWER_USER_IDS from a
 * /start and checks the review chat. The work is in src/cli/setup/, loaded only
 * when this command runs (it brings grammY and the daemon's constants).
 */
export const setupCommand: CliCommand = {
  name: "setup",
  summary: "find the review chat and your user id from a /start, write them to .env, check the chat",
  usage: [
    "draft-review setup [--yes | --no-write] [--timeout SECONDS] [--reaction-wait SECONDS] [--pii-allow LIST] [--json]",
    "",
    "Needs only TELEGRAM_BOT_TOKEN (environment or .env; TELEGRAM_API_ROOT is honoured).",
    "1. checks the token (getMe);",
    "2. waits for /start from you, in the chat where drafts should be reviewed (your private",
    "   chat with the bot, or a group: /start@<bot>), and prints REVIEW_CHAT_ID and",
    "   REVIEWER_USER_IDS;",
    "3. offers to write them to .env (asks first on a terminal; y/N before overwriting);",
    "   asks for your own phone numbers and email addresses, which redaction then leaves in",
    "   drafts, and offers to add them to PII_ALLOW in .env (merged with what is there);",
    "   then Linear, email and Slack (optional): a channel set in .env is proven as the daemon",
    "   proves it at start (who it speaks as there); on a terminal, one that is not (or whose",
    "   credentials are refused) is asked for (Enter skips), proven, and written after asking;",
    "4. posts a short hello in that chat and, for a group, checks that the bot is an admin",
    "   (Telegram sends reactions only to admin bots);",
    "5. asks you to react 👍 on the hello and says whether the reaction reached the bot (in a",
    "   private chat with a bot Telegram often never delivers it: then decide with the buttons,",
    "   or use a private group where the bot is admin).",
    "The updates it read are confirmed, so the daemon never sees the /start. The daemon",
    "must not run meanwhile: Telegram lets only one program poll a bot.",
    "",
    "  -y, --yes            write .env without asking",
    "  --no-write           only print the values",
    `  --timeout SECONDS    how long to wait for /start (default ${DEFAULT_TIMEOUT_SECONDS})`,
    `  --reaction-wait SECONDS  how long to wait for your 👍 on the hello (default ${DEFAULT_REACTION_WAIT_SECONDS}; 0 skips)`,
    "  --pii-allow LIST     your own phone numbers and email addresses, comma-separated, instead of",
    '                       being asked (e.g. "+61 412 345 678,you@example.com"); each is checked',
    "  --json               print the result as one JSON line (progress goes to stderr)",
    "",
    "Without a terminal on stdin and without --yes, .env is not written (setup says so).",
  ].join("\n"),
  exitCodes: [
    "Exit codes:",
    "  0  done: the ids are printed (and written, or already in .env) and the review chat works",
    "  3  the ids are found, but the review chat needs fixing: the bot cannot post there, or",
    "     is not an admin in the group (each problem is printed with its fix)",
    "  1  setup could not finish: no or a refused token, the daemon is running (409), no",
    "     /start in time, Telegram unreachable, .env not writable, a --pii-allow value that",
    "     is no phone number or email address, or a usage error",
  ].join("\n"),
  options: {
    yes: { type: "boolean", short: "y" },
    "no-write": { type: "boolean" },
    timeout: { type: "string" },
    "reaction-wait": { type: "string" },
    "pii-allow": { type: "string" },
    json: { type: "boolean" },
  },
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const yes = args.values.yes === true;
    const noWrite = args.values["no-write"] === true;
    if (yes && noWrite) throw new CliFailure("--yes and --no-write contradict each other: pick one");
    const timeoutText = typeof args.values.timeout === "string" ? args.values.timeout : String(DEFAULT_TIMEOUT_SECONDS);
    const timeoutSeconds = Number(timeoutText);
    if (!/^\d+$/.test(timeoutText) || timeoutSeconds < 1)
      throw new CliFailure(`--timeout must be a whole number of seconds, 1 or more (got "${timeoutText}")`);
    const reactionText =
      typeof args.values["reaction-wait"] === "string" ? args.values["reaction-wait"] : String(DEFAULT_REACTION_WAIT_SECONDS);
    const reactionWaitSeconds = Number(reactionText);
    if (!/^\d+$/.test(reactionText))
      throw new CliFailure(`--reaction-wait must be a whole number of seconds, 0 to skip (got "${reactionText}")`);
    const { runSetup } = await import("../setup/run-setup.js");
    const piiAllow = typeof args.values["pii-allow"] === "string" ? args.values["pii-allow"] : null;
    const { piiAllowProblem } = await import("../setup/own-details.js");
    const problem = piiAllow === null ? null : piiAllowProblem(piiAllow);
    if (problem !== null) throw new CliFailure(problem);
    return runSetup(io, { yes, noWrite, json: args.values.json === true, timeoutSeconds, reactionWaitSeconds, piiAllow });
  },
};
