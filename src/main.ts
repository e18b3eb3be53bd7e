import { config as loadDotenv } from "dotenv";
import { resolve } from "node:path";
import { ConfigError, loadConfig } from "./config/config.js";
import { looseEnvWarning, looseSecretEnvFile } from "./config/env-secrets.js";
import { useReviewTimeZone } from "./config/time-zone.js";
import { createLogger, scrubSecrets } from "./log/logger.js";
import { makeRedactor } from "./redact/redact.js";
import { HarnessDirError } from "./app/harness-guard.js";
import { ApiTokenError } from "./app/api-token.js";
import { LockHeldError } from "./store/lock.js";
import { StoreCorruptError } from "./store/store-errors.js";
import { DataRefusalError, DATA_REFUSAL_EXIT } from "./store/data-refusal.js";
import { runTestMode } from "./test-mode/run.js";
import { channelsFromEnv } from "./channels/configured.js";

/** The secrets no output may show, known once the configuration is read (the daemon adds its generated API token). */
const secrets: (string | null | undefined)[] = [];

/**
 * `npm start`: loads `.env` (the process environment wins), parses the
 * configuration once, and runs test mode or the live daemon.
 */
async function main(): Promise<number> {
  // The kill switch must know what the process itself said, before .env fills gaps.
  const processSwitchValue = process.env.TAO_SWARM_ENABLED;
  loadDotenv({ quiet: true });
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`draft-review: cannot start.\n${err.message}\n`);
      return 78;
    }
    throw err;
  }
  useReviewTimeZone(config.reviewTimeZone);
  secrets.push(config.telegram.token, config.api.token, config.callback?.secret);
  // Linear, email, Slack (contract v5): read once; one set wrongly refuses the start, naming the variable.
  // What the channels ask of the daemon's records, answered once the desk exists (start-steps.ts).
  const sentBefore = { known: (_address: string): boolean => false, startedAt: (_reference: string): number | null => null };
  const channels = await channelsFromEnv(process.env, {
    now: Date.now,
    confirmOver: config.audienceConfirmOver,
    knownRecipient: (address) => sentBefore.known(address),
    sendStartedAt: (reference) => sentBefore.startedAt(reference),
  });
  if (!channels.ok) {
    process.stderr.write(`draft-review: cannot start.\n${channels.errors.join("\n")}\n`);
    return 78;
  }
  secrets.push(...channels.secrets);
  const log = createLogger({
    level: config.logLevel,
    secrets,
    pretty: process.stderr.isTTY === true,
  });
  const looseEnv = await looseSecretEnvFile(resolve(".env"));
  if (looseEnv !== null) log.warn({ path: looseEnv.path, mode: `0${looseEnv.mode.toString(8)}` }, looseEnvWarning(looseEnv));
  const redactor = config.piiRedaction === "redact" ? makeRedactor(config.piiAllow) : null;
  if (config.mode === "test") {
    await runTestMode(config, log, { processSwitchValue, redact: redactor, secrets });
    return 0;
  }
  const { runDaemon } = await import("./daemon/run.js");
  return runDaemon(config, log, { processSwitchValue, redact: redactor, secrets, channels: { ...channels, sentBefore } });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const known = secrets.filter((s): s is string => typeof s === "string" && s.length >= 8);
    // A damaged store (or update journal) is an operator's matter, not a bug: its message names the file and the line.
    // So is another daemon holding HARNESS_DIR: its message names the pid and the lock file.
    const operators = err instanceof StoreCorruptError || err instanceof LockHeldError;
    // HARNESS_DIR or the API token file that others could use against the gate: a configuration matter (78, EX_CONFIG).
    // Data in HARNESS_DIR the daemon will not start on (DataRefusalError): 78 too, the message says what to do.
    const unsafe = err instanceof HarnessDirError || err instanceof ApiTokenError || err instanceof DataRefusalError;
    const text =
      operators || unsafe ? `cannot start.\n${err.message}` : `stopped by an unexpected error: ${(err as Error)?.stack ?? String(err)}`;
    process.stderr.write(`draft-review: ${scrubSecrets(text, known)}\n`);
    process.exitCode = unsafe ? DATA_REFUSAL_EXIT : 1;
  },
);
