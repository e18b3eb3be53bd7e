import { readFile, stat } from "node:fs/promises";
import { parse as parseDotenv } from "dotenv";

/** The kill switch's verdict at one moment. */
export type KillSwitchState = { readonly halted: false } | { readonly halted: true; readonly reason: string };

/** Evaluated at each send, never cached: the send path asks it right before the call. */
export interface KillSwitch {
  check(): Promise<KillSwitchState>;
}

/** What TAO_SWARM_ENABLED's value means. Anything unrecognised halts (fail closed). */
export function readSwitchValue(value: string | undefined): "enabled" | "halted" | "unrecognised" {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === "" || v === "1" || v === "true" || v === "yes" || v === "on") return "enabled";
  if (v === "0" || v === "false" || v === "no" || v === "off") return "halted";
  return "unrecognised";
}

/** Where the kill switch looks. */
export interface EnvKillSwitchOptions {
  /** TAO_SWARM_ENABLED as the process environment had it before `.env` was loaded. */
  readonly processValue: string | undefined;
  /** The `.env` file, read again at every check. */
  readonly envFilePath: string;
  /** A file whose presence means the owner halted sends (/halt, `draft-review halt`). */
  readonly ownerHaltPath: string;
}

/**
 * The contract's kill switch: sends halt if the process environment, the
 * current `.env`, or the owner's halt says so. Any doubt (an unreadable `.env`,
 * an unrecognised value) halts too.
 */
export function envKillSwitch(options: EnvKillSwitchOptions): KillSwitch {
  return {
    async check() {
      const fromProcess = readSwitchValue(options.processValue);
      if (fromProcess !== "enabled") {
        return { halted: true, reason: `TAO_SWARM_ENABLED=${options.processValue} in the process environment` };
      }
      let text: string | null = null;
      try {
        text = await readFile(options.envFilePath, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
          return { halted: true, reason: `cannot read ${options.envFilePath} (${(err as Error).message})` };
        }
      }
      if (text !== null) {
        const value = parseDotenv(text).TAO_SWARM_ENABLED;
        if (readSwitchValue(value) !== "enabled") return { halted: true, reason: `TAO_SWARM_ENABLED=${value} in .env` };
      }
      try {
        await stat(options.ownerHaltPath);
        return { halted: true, reason: "halted by the owner (/halt or draft-review halt)" };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
          return { halted: true, reason: `cannot check ${options.ownerHaltPath} (${(err as Error).message})` };
        }
      }
      return { halted: false };
    },
  };
}
