import { config as loadDotenv } from "dotenv";
import { ConfigError, loadConfig } from "./config/config.js";
import { createLogger } from "./log/logger.js";
import { redact } from "./redact/redact.js";
import { runTestMode } from "./test-mode/run.js";

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
  const secrets = [config.telegram.token, config.api.token];
  const log = createLogger({
    level: config.logLevel,
    secrets,
    pretty: process.stderr.isTTY === true,
  });
  const redactor = config.piiRedaction === "redact" ? redact : null;
  if (config.mode === "test") {
    await runTestMode(config, log, { processSwitchValue, redact: redactor });
    return 0;
  }
  const { runDaemon } = await import("./daemon/run.js");
  return runDaemon(config, log, { processSwitchValue, redact: redactor, secrets });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`draft-review: stopped by an unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
