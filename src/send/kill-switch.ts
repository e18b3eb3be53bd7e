import { lstatSync, readFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
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

const ASSIGNMENT = /^[ \t]*(?:export[ \t]+)?TAO_SWARM_ENABLED[ \t]*[=:]/;

/**
 * Every value `.env` assigns to TAO_SWARM_ENABLED, in order. dotenv keeps only
 * the last one; the kill switch halts if any of them halts, so a `=1` added
 * below a `=0` cannot lift a halt.
 */
export function switchAssignments(envText: string): string[] {
  const values: string[] = [];
  for (const line of envText.split(/\r?\n/)) {
    if (!ASSIGNMENT.test(line)) continue;
    values.push(parseDotenv(line).TAO_SWARM_ENABLED ?? line);
  }
  const last = parseDotenv(envText).TAO_SWARM_ENABLED;
  if (last !== undefined) values.push(last);
  return values;
}

/** Why `.env`'s text halts sends, or null when every TAO_SWARM_ENABLED in it enables them. */
export function envTextHalts(envText: string): string | null {
  const halting = switchAssignments(envText).find((v) => readSwitchValue(v) !== "enabled");
  return halting === undefined ? null : `TAO_SWARM_ENABLED=${halting} in .env`;
}

/**
 * Whether the owner's HALT entry exists. Anything at that name halts (a file,
 * a directory, a symbolic link, even one pointing nowhere): lstat, never stat.
 * Any error but "no such entry" halts too.
 */
export async function ownerHaltPresent(path: string): Promise<{ present: boolean; problem?: string }> {
  try {
    await lstat(path);
    return { present: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { present: false };
    return { present: true, problem: (err as Error).message };
  }
}

/** `.env`'s text, null when there is none, or why it could not be read. */
function readEnvFile(path: string): { text: string | null; problem?: string } {
  try {
    return { text: readFileSync(path, "utf8") };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { text: null };
    return { text: null, problem: (err as Error).message };
  }
}

/** ownerHaltPresent, synchronously (see envKillSwitch). */
export function ownerHaltPresentNow(path: string): { present: boolean; problem?: string } {
  try {
    lstatSync(path);
    return { present: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { present: false };
    return { present: true, problem: (err as Error).message };
  }
}

/**
 * The contract's kill switch: sends halt if the process environment, the
 * current `.env`, or the owner's halt says so. Any doubt (an unreadable `.env`,
 * an unrecognised value, a HALT entry of any kind) halts too.
 */
export function envKillSwitch(options: EnvKillSwitchOptions): KillSwitch {
  return {
    async check() {
      const fromProcess = readSwitchValue(options.processValue);
      if (fromProcess !== "enabled") {
        return { halted: true, reason: `TAO_SWARM_ENABLED=${options.processValue} in the process environment` };
      }
      // Read synchronously: two tiny local reads (tens of microseconds) that must not queue in libuv's thread
      // pool behind the fsyncs of other drafts' changes (a millisecond each), on the path of every send call.
      const envFile = readEnvFile(options.envFilePath);
      const halt = ownerHaltPresentNow(options.ownerHaltPath);
      if (envFile.problem !== undefined) return { halted: true, reason: `cannot read ${options.envFilePath} (${envFile.problem})` };
      const fromEnvFile = envFile.text === null ? null : envTextHalts(envFile.text);
      if (fromEnvFile !== null) return { halted: true, reason: fromEnvFile };
      if (halt.problem !== undefined) return { halted: true, reason: `cannot check ${options.ownerHaltPath} (${halt.problem})` };
      if (halt.present) return { halted: true, reason: "halted by the owner (/halt or draft-review halt)" };
      return { halted: false };
    },
  };
}
