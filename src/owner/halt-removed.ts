import type { AuditEntry } from "../audit/audit-log.js";
import { ownerHaltPresentNow } from "../send/kill-switch.js";

/**
 * The owner's halt ended by hand: HARNESS_DIR/HALT removed without /resume
 * or `draft-review resume` (those audit `owner_resume` before removing it).
 * Any HALT halts, so removing it is a plausible way to end one; the audit log
 * must then say the halt ended too, or its `owner_halt` would read as lasting
 * at every start and void every approval made before that start
 * (AuditIndex.loggedHalt).
 *
 * Run at every look of the kill switch, before its verdict is used (see
 * halt-watch.ts): when HALT is gone, and was seen in this run or the log
 * shows an owner's halt lasting, the log is read to its end (a resume the CLI
 * wrote counts) and, if the halt still lasts there, an `owner_resume` with
 * channel "file" is appended: proven and fsync'd before any send or 👍 Send
 * again acts on the resume. At start (the first look) a halt the log shows
 * as lasting while no HALT is there ends then: the state the file says. The
 * halt line still voids every approval made before that end.
 */

/** What the hook reads and writes: the HALT file and the daemon's audit log. */
export interface HaltRemovalDeps {
  readonly haltPath: string;
  readonly audit: {
    /** True when the log shows an owner's halt lasting, as far as already read (cheap, in memory). */
    readonly index: { ownerHaltLasting(): boolean };
    /** The same, after reading the log to its end. */
    ownerHaltLasting(): Promise<boolean>;
    append(entries: readonly AuditEntry[]): Promise<void>;
  };
}

/** The audit line of a halt whose HALT file was removed by hand. */
const REMOVED: AuditEntry = { kind: "owner_resume", user_id: null, channel: "file", changed: true };

/** A look's hook (one at a time): audits the end of an owner's halt whose HALT file is gone; rejects when that line cannot be written. */
export function auditHaltRemoval(deps: HaltRemovalDeps): () => Promise<void> {
  let seen = false;
  const once = async () => {
    // Synchronously, like the switch's own read (kill-switch.ts): this hook runs at every look, on the path of every send.
    if (ownerHaltPresentNow(deps.haltPath).present) {
      seen = true;
      return;
    }
    if (!seen && !deps.audit.index.ownerHaltLasting()) return;
    if (await deps.audit.ownerHaltLasting()) await deps.audit.append([REMOVED]);
    seen = false;
  };
  let last: Promise<void> = Promise.resolve();
  return () => {
    last = last.catch(() => undefined).then(once);
    return last;
  };
}
