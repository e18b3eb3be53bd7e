import type { AuditEntry } from "../audit/audit-log.js";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { haltBegan, haltEnded, readHaltRecord, writeHaltRecord } from "../send/halt-record.js";
import { ownerHaltPresent } from "../send/kill-switch.js";
import { createHaltFile, removeHaltFile } from "./halt-file.js";

/** Who asked for a halt or a resume, as the audit line records it. */
export interface OwnerActor {
  /** The Telegram user id, or null from the command line. */
  readonly user_id: number | null;
  /** "command" (the review chat) or "cli". */
  readonly channel: "command" | "cli";
  readonly update_id?: number | null;
  /** The local account that ran the CLI. */
  readonly os_user?: string;
}

/** Where the halt lives and where it is audited (the daemon's AuditLog, or the CLI's own). */
export interface OwnerSwitchDeps {
  readonly haltPath: string;
  /** The halt record (halt-record.ts); default `halt_record.json` beside HALT, where harnessPaths puts it. */
  readonly haltRecordPath?: string;
  readonly audit: { append(entries: readonly AuditEntry[]): Promise<void> };
  readonly now: () => number;
}

/** What a halt or resume did: `changed` is false when sends were already halted (or not halted) by the owner. */
export interface OwnerSwitchResult {
  readonly action: "halt" | "resume";
  readonly changed: boolean;
}

function entry(kind: "owner_halt" | "owner_resume", actor: OwnerActor, changed: boolean): AuditEntry {
  return {
    kind,
    user_id: actor.user_id,
    channel: actor.channel,
    changed,
    ...(actor.update_id != null ? { update_id: actor.update_id } : {}),
    ...(actor.os_user ? { os_user: actor.os_user } : {}),
  };
}

/**
 * The owner's halt, shared by /halt and `draft-review halt`: the halt record
 * (when it began), the HALT file (so sends stop even if the audit write then
 * fails), then the audit line.
 */
export async function ownerHalt(deps: OwnerSwitchDeps, actor: OwnerActor): Promise<OwnerSwitchResult> {
  // The halt's start is on disk before the halt itself: a halt lifted again before a restart still voids older approvals.
  // Best effort: the HALT file is what halts, and a running daemon records the halt it sees.
  await recordHaltBegan(deps).catch(() => {});
  const changed = await createHaltFile(deps.haltPath, {
    at: new Date(deps.now()).toISOString(),
    channel: actor.channel,
    user_id: actor.user_id,
    ...(actor.os_user ? { by: actor.os_user } : {}),
  });
  await deps.audit.append([entry("owner_halt", actor, changed)]);
  return { action: "halt", changed };
}

/**
 * The owner's resume, shared by /resume and `draft-review resume`: the audit
 * line first (sends never resume without a trace), then the HALT file goes.
 * Other halts (TAO_SWARM_ENABLED) are not touched: the kill switch combines them.
 */
export async function ownerResume(deps: OwnerSwitchDeps, actor: OwnerActor): Promise<OwnerSwitchResult> {
  // Whatever is at HALT (a dangling symlink too) halts, so /resume removes whatever is there; unreadable: try, which says why not.
  const { present } = await ownerHaltPresent(deps.haltPath);
  await deps.audit.append([entry("owner_resume", actor, present)]);
  // Its end is on disk before the halt goes (a daemon that is down learns it at start): a record that
  // cannot be written keeps the halt, so no approval older than it can outlive it unseen.
  if (present) await recordHaltEnded(deps);
  const changed = present ? await removeHaltFile(deps.haltPath) : false;
  return { action: "resume", changed };
}

/** Records in the halt record that a halt began now, unless one is recorded as lasting. */
async function recordHaltBegan(deps: OwnerSwitchDeps): Promise<void> {
  const path = haltRecordPathOf(deps);
  const read = await readHaltRecord(path);
  if (read.kind === "record" && read.record.ended_at === null) return;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeHaltRecord(path, haltBegan(deps.now(), "halted by the owner (/halt or draft-review halt)"));
}

/**
 * Records the end of a lasting halt. A halt whose start never reached the record (its write failed)
 * is recorded as ending now, so every approval before now still counts as halted. A damaged record
 * stays: it already counts as a halt until now, and a running daemon replaces it at its next look.
 */
async function recordHaltEnded(deps: OwnerSwitchDeps): Promise<void> {
  const path = haltRecordPathOf(deps);
  const read = await readHaltRecord(path);
  if (read.kind === "damaged") return;
  const now = deps.now();
  const lasting =
    read.kind === "record" && read.record.ended_at === null
      ? read.record
      : haltBegan(now, "halted by the owner (/halt or draft-review halt)");
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeHaltRecord(path, haltEnded(lasting, now));
}

function haltRecordPathOf(deps: OwnerSwitchDeps): string {
  return deps.haltRecordPath ?? join(dirname(deps.haltPath), "halt_record.json");
}
