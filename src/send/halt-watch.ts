import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { Clock, TimerHandle } from "../clock/clock.js";
import { haltBegan, haltEnded, lastHaltIn, readHaltRecord, writeHaltRecord, type HaltRecordRead } from "./halt-record.js";
import type { KillSwitch, KillSwitchState } from "./kill-switch.js";

/** When a halt was last seen, and why. */
export interface HaltSighting {
  readonly at: number;
  readonly reason: string;
}

/** A kill switch that remembers the last halt it saw, so a halt that came and went still voids older approvals. */
export interface WatchedKillSwitch extends KillSwitch {
  /** The latest moment (on the injected clock) a halt was in force, or null if none was seen since start. */
  lastHalt(): HaltSighting | null;
  /** Records a halt this process made itself (/halt), without waiting for the next look. */
  noteHalt(reason: string): void;
  /**
   * Calls `listener` each time a look finds the switch off after one found it halted (the posts of
   * the drafts that halt stopped offer 👍 again). Returns a function that unsubscribes.
   */
  onHaltEnded(listener: () => void): () => void;
  /**
   * Calls `listener` each time a halt begins: a look finds the switch halted after one found it off
   * (or none looked yet), or HALT changed (a halt that may have come and gone between two looks).
   * The drafts approved before it are halted at once. Returns a function that unsubscribes.
   */
  onHaltStarted(listener: () => void): () => void;
  /** Stops looking (timers and file watches). */
  stop(): void;
}

/** What to watch besides the periodic look. */
export interface HaltWatchOptions {
  readonly clock: Clock;
  /** How often the switch is read while nothing else says it changed. Default 1000 ms; 0 = never. */
  readonly pollMs?: number;
  /** Files whose change (create, delete, rename, write) triggers a look at once: HALT and `.env`. */
  readonly files?: readonly string[];
  /** Files whose mere change counts as a halt seen (HALT: created and removed between two looks). */
  readonly haltOnChange?: readonly string[];
  /**
   * The halt record (halt-record.ts), read at every look: the halts of earlier runs count too. When a
   * look finds the switch halted and the record says no halt lasts, a new one is recorded as begun;
   * when it finds the switch off and the record says one lasts, its end is recorded.
   */
  readonly recordPath?: string;
  /** Where a record that cannot be written is reported (the look goes on; the next one tries again). */
  readonly log?: { error(obj: object, msg: string): void };
  /**
   * The last owner's halt the audit log's proven lines show (AuditLog.loggedHalt): it counts as well as
   * the record, so a halt voids older approvals even when halt_record.json is missing or older.
   */
  readonly loggedHalt?: () => HaltSighting | null;
  /**
   * Runs at every look, after the switch is read and before its verdict is used: the end of an owner's
   * halt whose HALT file was removed by hand is audited first (owner/halt-removed.ts). When it rejects,
   * the look halts (the next one tries again): sends never resume on a resume the log lacks.
   */
  readonly beforeVerdict?: () => Promise<void>;
}

/**
 * Wraps the kill switch so that a halt that begins after an approval and
 * ends before its send (a /halt then /resume during a 429 wait or the undo
 * window) is still known at the send call: every check that halts, every
 * periodic look, every change of HALT or `.env` is remembered with its time.
 */
export function watchKillSwitch(inner: KillSwitch, options: HaltWatchOptions): WatchedKillSwitch {
  const { clock } = options;
  let last: HaltSighting | null = null;
  /** What the last look found: halted or not (null: no look yet). */
  let lastLookHalted: boolean | null = null;
  const ended = listenerSet();
  const started = listenerSet();
  const note = (reason: string, at = clock.now()) => {
    if (last === null || last.at <= at) last = { at, reason };
  };
  const record = haltRecorder(options, (seen) => {
    if (last === null || last.at < seen.at) last = seen;
  });
  /** One look at the switch; `haltSeen`: HALT changed since the last one (a halt may have come and gone). */
  const lookAt = async (haltSeen: boolean): Promise<KillSwitchState> => {
    const read = await inner.check();
    // Dated when the switch was read, not when the verdict is ready: the hook below waits on the audit log, and a
    // halt dated then could outlast its end and void an approval made after it (the removal of HALT seen first).
    const readAt = clock.now();
    const state = await auditedVerdict(read, options);
    const at = state.halted && !read.halted ? clock.now() : readAt;
    if (state.halted) note(state.reason, at);
    const didEnd = !state.halted && lastLookHalted === true;
    const began = state.halted ? lastLookHalted !== true : haltSeen;
    lastLookHalted = state.halted;
    await record(state, at);
    if (didEnd) ended.fire();
    if (began) started.fire();
    return state;
  };
  const look = (haltSeen = false) =>
    void lookAt(haltSeen).catch(() => {
      // Counted as a halt (it voids older approvals): their posts say so at once too.
      note("the kill switch could not be read");
      started.fire();
    });
  const poll = pollEvery(clock, options.pollMs ?? 1000, () => look());
  const watchers = watchHaltFiles(options, (haltPath) => {
    if (haltPath !== undefined) {
      note(`${haltPath} changed`);
      void record({ halted: "momentarily", reason: `${haltPath} changed` }, clock.now());
    }
    look(haltPath !== undefined);
  });
  return {
    check: () => lookAt(false),
    lastHalt: () => laterHalt(last, options.loggedHalt?.() ?? null),
    noteHalt: note,
    onHaltEnded: ended.add,
    onHaltStarted: started.add,
    stop() {
      poll.stop();
      for (const w of watchers) w.close();
    },
  };
}

/** Listeners called in the order they were added; `add` returns a function that removes one. */
function listenerSet(): { add(listener: () => void): () => void; fire(): void } {
  const listeners = new Set<() => void>();
  return {
    add(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    fire() {
      for (const listener of listeners) listener();
    },
  };
}

/**
 * Keeps the halt record (options.recordPath) level with each look, one update at a time in the order
 * the looks ended; every read of it hands the last halt it shows to `seen`. No path: nothing is kept.
 */
function haltRecorder(options: HaltWatchOptions, seen: (sighting: HaltSighting) => void): (state: SeenState, at: number) => Promise<void> {
  const { recordPath } = options;
  let recording: Promise<void> = Promise.resolve();
  // `at`: when the look read the switch. A halt the record shows lasting lasted until then, and ended by then if
  // the switch was off: a record written later must not stretch it past an approval made meanwhile.
  return (state, at) => {
    if (recordPath === undefined) return Promise.resolve();
    recording = recording.then(async () => {
      const read = await readHaltRecord(recordPath);
      const sighting = lastHaltIn(read, at);
      if (sighting !== null) seen(sighting);
      await keepRecord(recordPath, read, state, at).catch((err: unknown) =>
        options.log?.error({ err, path: recordPath }, "could not write the halt record; the next look tries again"),
      );
    });
    return recording;
  };
}

/** Calls `look` every `pollMs` on the clock until stopped (0 or less: never). */
function pollEvery(clock: Clock, pollMs: number, look: () => void): { stop(): void } {
  let stopped = false;
  let timer: TimerHandle | undefined;
  const arm = () => {
    if (stopped || pollMs <= 0) return;
    timer = clock.setTimeout(() => {
      look();
      arm();
    }, pollMs);
  };
  arm();
  return {
    stop() {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
    },
  };
}

/**
 * Watches the directories of options.files and options.haltOnChange: a change of one of those files
 * calls `changed`, with its path when it is a halt file (its mere change counts as a halt seen).
 * Where a directory cannot be watched, the periodic look still runs.
 */
function watchHaltFiles(options: HaltWatchOptions, changed: (haltPath: string | undefined) => void): FSWatcher[] {
  const haltFiles = new Set(options.haltOnChange ?? []);
  const byDir = new Map<string, Set<string>>();
  for (const file of [...(options.files ?? []), ...haltFiles]) {
    const names = byDir.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    byDir.set(dirname(file), names);
  }
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || !names.has(String(name))) return;
        changed([...haltFiles].find((f) => dirname(f) === dir && basename(f) === String(name)));
      });
      w.on("error", () => {}); // the periodic look still runs
      watchers.push(w);
    } catch {
      // No file watching here (a missing directory, an unsupported file system): the periodic look still runs.
    }
  }
  return watchers;
}

/** The look's verdict once `beforeVerdict` ran: halted when it failed (and the switch said go). */
async function auditedVerdict(state: KillSwitchState, { beforeVerdict, log }: HaltWatchOptions): Promise<KillSwitchState> {
  if (beforeVerdict === undefined) return state;
  try {
    await beforeVerdict();
    return state;
  } catch (err) {
    log?.error({ err }, "could not audit the end of the owner's halt (HALT removed by hand); sends stay halted, the next look tries again");
    if (state.halted) return state;
    return {
      halted: true,
      reason: `the end of the owner's halt could not be audited (${(err as Error).message}); the next look tries again`,
    };
  }
}

/** The later of two sightings (either may be missing). */
export function laterHalt(a: HaltSighting | null, b: HaltSighting | null): HaltSighting | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.at > a.at ? b : a;
}

/** The switch as a look found it, or a halt seen only as a change of HALT (created and removed between two looks). */
type SeenState = KillSwitchState | { readonly halted: "momentarily"; readonly reason: string };

/**
 * Brings the halt record level with the switch as just seen: a halt that the
 * record does not show as lasting is recorded as begun now; a lasting one
 * whose switch is off now is recorded as ended now. A damaged record is
 * replaced (it already counted as a halt lasting until now).
 */
async function keepRecord(path: string, read: HaltRecordRead, state: SeenState, now: number): Promise<void> {
  const lasting = read.kind === "damaged" || (read.kind === "record" && read.record.ended_at === null);
  if (state.halted === "momentarily") {
    if (!lasting) await writeHaltRecord(path, haltEnded(haltBegan(now, state.reason), now));
    return;
  }
  if (state.halted && !lasting) return writeHaltRecord(path, haltBegan(now, state.reason));
  if (!state.halted && lasting) {
    const began = read.kind === "record" ? read.record : haltBegan(now, "a halt record that could not be read");
    return writeHaltRecord(path, haltEnded(began, now));
  }
}

/**
 * Why the kill switch stops an approval given at `approvedAt`, or null: halted
 * at this moment (`lasting`: no 👍 is offered until it ends), or halted at any
 * moment since the approval (a halt voids the approvals made before it, even
 * once lifted). The one verdict for the send call and for a halt that begins
 * while approvals wait (their posts say so at once).
 */
export async function approvalHalt(
  killSwitch: KillSwitch & { lastHalt?(): HaltSighting | null },
  approvedAt: string | undefined,
): Promise<{ reason: string; lasting: boolean } | null> {
  const verdict = await killSwitch.check();
  if (verdict.halted) return { reason: `kill switch: ${verdict.reason}`, lasting: true };
  const voided = haltVoidsApproval(approvedAt, killSwitch.lastHalt?.() ?? null);
  if (voided === null) return null;
  // The halt seen may have begun while that look ran (HALT written meanwhile): look again, so a halt that lasts is
  // never called over (its post would offer 👍 Send while sends are halted).
  const again = await killSwitch.check();
  if (again.halted) return { reason: `kill switch: ${again.reason}`, lasting: true };
  return { reason: `kill switch: ${voided}`, lasting: false };
}

/**
 * Why an approved draft must not be sent although the switch is off now: a
 * halt was seen at or after its approval. Null when the approval stands.
 */
export function haltVoidsApproval(approvedAt: string | undefined, lastHalt: HaltSighting | null): string | null {
  if (lastHalt === null || approvedAt === undefined) return null;
  const at = Date.parse(approvedAt);
  if (Number.isNaN(at) || lastHalt.at < at) return null;
  return `a halt began after the approval (${lastHalt.reason}); approve again to send`;
}
