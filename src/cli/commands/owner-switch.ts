import { userInfo } from "node:os";
import { DataRefusalError } from "../../store/data-refusal.js";
import { AuditLog } from "../../audit/audit-log.js";
import { ownerHalt, ownerResume, type OwnerSwitchResult } from "../../owner/owner-switch.js";
import { killSwitchLine } from "../../owner/status-report.js";
import { envKillSwitch, type KillSwitchState } from "../../send/kill-switch.js";
import type { CliCommand } from "../command.js";
import { cliFileLog, cliHarness, CLI_AUDIT_SOURCE } from "../harness.js";
import { CliFailure, EXIT, type CliIo } from "../io.js";
import { printJsonLine } from "../output.js";
import { callApi } from "../api-client.js";
import { apiTarget, clientToken } from "../api-target.js";

const EXIT_CODES = [
  "Exit codes:",
  "  0  done (also when sends were already halted, or not halted, by the owner)",
  "  1  the HALT file or the audit log could not be written (the message says why), or a usage error",
].join("\n");

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}

/** The kill switch as .env and HALT say now (the daemon's own process environment may halt it too). */
export function localKillSwitch(io: CliIo): Promise<KillSwitchState> {
  const h = cliHarness(io);
  return envKillSwitch({ processValue: undefined, envFilePath: h.envFile, ownerHaltPath: h.ownerHalt }).check();
}

/** Runs halt or resume against HARNESS_DIR directly: it works whether or not the daemon runs. */
async function switchOwnerHalt(io: CliIo, action: "halt" | "resume"): Promise<OwnerSwitchResult> {
  const h = cliHarness(io);
  let audit: AuditLog;
  try {
    // Its lines carry the daemon's proof when the key exists; the CLI never makes it (the daemon's first start does).
    audit = await AuditLog.open({ path: h.audit, source: CLI_AUDIT_SOURCE, log: cliFileLog(io), key: { path: h.auditKey, create: false } });
  } catch (err) {
    if (err instanceof DataRefusalError) throw new CliFailure(`cannot write the audit log: ${err.message}`);
    throw new CliFailure(
      `cannot open the audit log ${h.audit} (${(err as Error).message}); check HARNESS_DIR and that this user may write there`,
    );
  }
  try {
    const deps = { haltPath: h.ownerHalt, audit, now: Date.now };
    const actor = { user_id: null, channel: "cli" as const, os_user: osUser() };
    return action === "halt" ? await ownerHalt(deps, actor) : await ownerResume(deps, actor);
  } catch (err) {
    throw new CliFailure(`${action} failed: ${(err as Error).message}`);
  } finally {
    await audit.close();
  }
}

function sentence(result: OwnerSwitchResult, state: KillSwitchState): string {
  if (result.action === "halt") {
    return result.changed
      ? "Sends halted by the owner: nothing is sent until `draft-review resume` (or /resume in the review chat)."
      : "Sends were already halted by the owner; nothing changed.";
  }
  const head = result.changed ? "The owner's halt is lifted." : "There was no owner halt to lift.";
  return state.halted ? `${head} Sends are still halted: ${state.reason}.` : `${head} ${killSwitchLine(state)}.`;
}

/** Whether the review chat heard of the change. */
type Told = "told" | "daemon_not_running" | "not_told" | "unchanged";

const TOLD: Record<Told, string> = {
  told: "The review chat was told.",
  daemon_not_running: "The daemon is not running, so the review chat was not told; it starts halted (or not) as HALT says.",
  not_told: "The review chat could not be told (the daemon did not take the notice).",
  unchanged: "Nothing changed, so the review chat was not told.",
};

/**
 * Asks the running daemon to tell the review chat, as /halt and /resume are
 * answered there. The switch itself is the HALT file, already changed: a
 * daemon that cannot be reached changes nothing about it.
 */
async function tellReviewChat(io: CliIo, action: "halt" | "resume"): Promise<Told> {
  try {
    // No token file (the daemon never ran here): still ask, so a daemon that is down is told apart.
    const token = await clientToken(io.env, io.cwd).catch(() => "");
    const answer = await callApi(apiTarget(io.env), token, { method: "POST", path: `/owner-switch?action=${action}`, timeoutMs: 10_000 });
    return answer.status === 200 ? "told" : "not_told";
  } catch (err) {
    return (err as { daemonNotRunning?: boolean }).daemonNotRunning === true ? "daemon_not_running" : "not_told";
  }
}

function switchCommand(action: "halt" | "resume", summary: string, details: string[]): CliCommand {
  return {
    name: action,
    summary,
    usage: [`draft-review ${action} [--json]`, "", ...details, "", "  --json   print the result as one JSON line"].join("\n"),
    exitCodes: EXIT_CODES,
    options: { json: { type: "boolean" } },
    positionals: { min: 0, max: 0 },
    async run(args, io) {
      const result = await switchOwnerHalt(io, action);
      const state = await localKillSwitch(io);
      const told = result.changed ? await tellReviewChat(io, action) : "unchanged";
      if (args.values.json === true) printJsonLine(io, { ...result, kill_switch: state, review_chat: told });
      else io.stdout.write(`${sentence(result, state)}\n${TOLD[told]}\n`);
      return EXIT.ok;
    },
  };
}

/** `draft-review halt`: the owner's halt from the command line (HARNESS_DIR/HALT, audited). */
export const haltCommand = switchCommand("halt", "halt every send now (works with or without the daemon)", [
  "Creates HARNESS_DIR/HALT (durably) and writes an owner_halt line to the audit log.",
  "The daemon checks the kill switch at every send, so no restart is needed; an",
  "approval made while halted leaves its draft `halted` (approve again after resume).",
  "Same as /halt in the review chat.",
]);

/** `draft-review resume`: lifts the owner's halt from the command line. */
export const resumeCommand = switchCommand("resume", "lift the owner's halt (TAO_SWARM_ENABLED=0 still halts)", [
  "Writes an owner_resume line to the audit log, then removes HARNESS_DIR/HALT.",
  "TAO_SWARM_ENABLED=0 (in .env or the daemon's environment) still halts: resume",
  "does not touch it, and says so. Same as /resume in the review chat.",
]);
