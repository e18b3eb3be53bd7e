import { guardHarnessDir } from "./harness-guard.js";
import { harnessPaths } from "./paths.js";
import { AuditLog } from "../audit/audit-log.js";
import type { Clock } from "../clock/clock.js";
import type { Config } from "../config/config.js";
import type { AudienceSource, ReviewChat } from "../desk/ports.js";
import { audienceCheck } from "../send/audience-check.js";
import { Intake, type Redactor } from "../desk/intake.js";
import { reconcileAudit } from "../desk/recovery.js";
import { countLiveDrafts, mayChangeDraft } from "../desk/test-drafts.js";
import { restoreLostChanges } from "./store-restore.js";
import { archiveMonthOf } from "../desk/archiving.js";
import { scheduleArchiving, type ArchivingSchedule } from "../desk/archive-schedule.js";
import { DraftArchive } from "../store/archive.js";
import { ReviewDesk } from "../desk/review-desk.js";
import { draftRecordSchema, type DraftRecord } from "../drafts/record.js";
import type { Logger } from "../log/logger.js";
import { approvalHalt, watchKillSwitch, type WatchedKillSwitch } from "../send/halt-watch.js";
import { envKillSwitch } from "../send/kill-switch.js";
import { auditHaltRemoval } from "../owner/halt-removed.js";
import type { DestinationLimiter } from "../send/limiter.js";
import type { SendMessageCall } from "../channels/telegram/send-call.js";
import { SendPath, type DraftLedger } from "../send/send-path.js";
import { JsonlStore } from "../store/jsonl-store.js";
import { acquireLock } from "../store/lock.js";
import type { TelegramBackoffs } from "../retry/backoff.js";
import { ChatLog } from "../business/chat-log.js";
import { ConnectionStore } from "../business/connection-store.js";
import { IgnoredConnections } from "../business/ignored-connections.js";
import { OwnerVoice, type FetchedConnection } from "../business/owner-voice.js";
import { RemovedItemsStore } from "../store/removed-items.js";
import type { ChannelSet } from "../channels/channel-set.js";

export { harnessPaths };

/** Where the core's files are (see paths.ts). */
type HarnessPaths = ReturnType<typeof harnessPaths>;

/** The edges that differ between live mode and test mode. */
export interface CoreEdges {
  readonly clock: Clock;
  /** `existing` drafts and `surfaces` (messages with decision controls): test mode's made-up message ids come after theirs. */
  readonly makeReviewChat: (existing: Iterable<DraftRecord>, surfaces: Iterable<{ readonly message_id: number }>) => ReviewChat;
  readonly sendCall: SendMessageCall;
  readonly limiter: DestinationLimiter;
  readonly redact: Redactor | null;
  /** Who will read each destination: shown on the review post and checked again at the send call. */
  readonly audience?: AudienceSource;
  /** TAO_SWARM_ENABLED as the process had it before `.env` was loaded. */
  readonly processSwitchValue: string | undefined;
  readonly envFilePath: string;
  /** How often the kill switch is read between sends (live: 1000 ms; default 0 = only at sends and on file changes, for simulated clocks). */
  readonly haltPollMs?: number;
  /** How review posts, sends Telegram never received and unanswered audience checks are retried (default: as named in src/retry/backoff.ts). */
  readonly backoffs?: Pick<TelegramBackoffs, "reviewPost" | "send" | "audienceCheck">;
  /** The logger's secrets: the audit key is added to them (never in a log line). */
  readonly secrets?: (string | null | undefined)[];
  /**
   * Telegram Business: the bot's @username, getBusinessConnection and how to tell the review chat of
   * another account's connection (live); absent: test mode (no network).
   */
  readonly business?: {
    readonly botUsername: string | null;
    readonly fetchConnection?: (id: string) => Promise<FetchedConnection>;
    readonly tell?: (text: string) => Promise<unknown>;
  };
  /** Linear, email and Slack as configured (contract v5); absent: Telegram only. */
  readonly channels?: ChannelSet | null;
  /** Their rate limits (Slack per conversation, EMAIL_RATE); absent: `limiter`. */
  readonly channelLimiter?: DestinationLimiter;
}

/** The running core: the desk, its intake, and how to close them. */
export interface Core {
  readonly desk: ReviewDesk;
  readonly intake: Intake;
  readonly reviewChat: ReviewChat;
  /** Remembers the last halt seen: a halt between an approval and its send voids the approval. */
  readonly killSwitch: WatchedKillSwitch;
  readonly store: JsonlStore<DraftRecord>;
  readonly audit: AuditLog;
  /** The archiving passes: why the last one failed, if it did. */
  readonly archiving: ArchivingSchedule;
  /** The archive of old final drafts: what its month files lost, if anything (`problems`). */
  readonly archive: DraftArchive<DraftRecord>;
  /** Telegram Business: the owner's connection, what people wrote to him, the check at the send call. */
  readonly voice: OwnerVoice;
  /** Linear, email and Slack as configured (contract v5); null: Telegram only. */
  readonly channels: ChannelSet | null;
  close(): Promise<void>;
}

/**
 * Opens HARNESS_DIR (lock, store replay, audit log), brings the audit log level
 * with the store, and builds the desk with the given edges. Draft recovery
 * (expiry, unknown sends, queued posts) is started by the caller once its
 * edges are ready: see `resumeDrafts`.
 */
export async function openCore(config: Config, log: Logger, edges: CoreEdges): Promise<Core> {
  const paths = harnessPaths(config.harnessDir);
  // Before anything in it is read or written: HARNESS_DIR must be this user's alone.
  await guardHarnessDir(config.harnessDir, log);
  const lock = await acquireLock(config.harnessDir, log);
  try {
    const files = await openFiles(config, paths, edges, log);
    await restoreFromAudit(config, paths, files, log);
    const killSwitch = await openKillSwitch(paths, ownPaths(config, paths), edges, files.audit, log);
    const voice = await openOwnerVoice(config, ownPaths(config, paths), edges, files.audit, log);
    const reviewChat = edges.makeReviewChat(files.store.latest.values(), files.audit.index.surfaces.all());
    const removedItems = new RemovedItemsStore(paths.removedItems);
    const desk = buildDesk(config, edges, { ...files, reviewChat, killSwitch, voice, removedItems }, log);
    reviewChat.useDrafts?.((id) => desk.get(id));
    const archiving = await startDesk(desk, killSwitch, edges.clock, log);
    const intake = buildIntake(config, edges, desk, { reviewChat, removedItems, voice });
    const { store, audit, archive } = files;
    return {
      desk,
      intake,
      reviewChat,
      killSwitch,
      store,
      audit,
      archiving,
      archive,
      voice,
      channels: edges.channels ?? null,
      async close() {
        await archiving.stop();
        killSwitch.stop();
        await desk.close();
        await edges.limiter.stop();
        await store.close();
        await audit.close();
        await lock.release();
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** The files the core decides by: the store, the audit log, the archive. */
interface CoreFiles {
  readonly store: JsonlStore<DraftRecord>;
  readonly audit: AuditLog;
  readonly archive: DraftArchive<DraftRecord>;
  /** How many live drafts test mode leaves alone (0 in live mode). */
  readonly liveLeftAlone: number;
}

/** Replays the store, opens the audit log (with its key) and the archive. */
async function openFiles(config: Config, paths: HarnessPaths, edges: CoreEdges, log: Logger): Promise<CoreFiles> {
  const store = await JsonlStore.open<DraftRecord>({
    path: paths.drafts,
    parse: (value) => draftRecordSchema.parse(value),
    log,
    // DRAFT_STORE_COMPACT_AFTER_LINES; unset: the store's default.
    ...(config.storeCompactAfterLines === null ? {} : { compactAfterLines: config.storeCompactAfterLines }),
  });
  // Test mode leaves live drafts alone (see test-drafts.ts): their store lines stay byte for byte, so nothing rewrites the store.
  const liveLeftAlone = config.mode === "test" ? countLiveDrafts(store.latest.values()) : 0;
  if (liveLeftAlone > 0) store.appendOnly("test mode never rewrites the lines of live drafts");
  const audit = await AuditLog.open({
    path: paths.audit,
    log,
    now: () => edges.clock.now(),
    checkpointPath: paths.auditIndex,
    key: { path: paths.auditKey, create: true, onSecret: (secret) => edges.secrets?.push(secret) },
  });
  const archive = await DraftArchive.open<DraftRecord>({
    dir: paths.archive,
    parse: (value) => draftRecordSchema.parse(value),
    monthOf: archiveMonthOf,
    log,
  });
  return { store, audit, archive, liveLeftAlone };
}

/** What the store lacks of the audit log's proven lines is restored, or the start is refused (nothing silently older). */
async function restoreFromAudit(config: Config, paths: HarnessPaths, files: CoreFiles, log: Logger): Promise<void> {
  const { store, audit, archive } = files;
  await restoreLostChanges({
    storePath: paths.drafts,
    latest: store.latest,
    append: (records) => store.append(records),
    archived: (id) => archive.mayHoldDraft(id),
    // Test mode restores only its own drafts: a live draft's store is the live daemon's to restore.
    mayChange: (draft) => mayChangeDraft(draft, config.mode === "test"),
    audit: {
      draftIds: () => audit.index.draftIds(),
      audited: (id) => audit.index.audited(id),
      transitionAt: (id, v) => audit.transitionAt(id, v),
    },
    log,
  });
  // The index keeps what it knows only of drafts the store holds (archived ones are final).
  audit.index.retainDrafts((id) => store.latest.has(id));
}

/**
 * The kill switch (TAO_SWARM_ENABLED, .env, the owner's HALT), watched, with
 * the halts of earlier runs counted: it has had its first look when this returns.
 */
async function openKillSwitch(paths: HarnessPaths, own: HarnessPaths, edges: CoreEdges, audit: AuditLog, log: Logger) {
  const killSwitch = watchKillSwitch(
    envKillSwitch({ processValue: edges.processSwitchValue, envFilePath: edges.envFilePath, ownerHaltPath: paths.ownerHalt }),
    {
      clock: edges.clock,
      pollMs: edges.haltPollMs ?? 0,
      files: [edges.envFilePath],
      haltOnChange: [paths.ownerHalt],
      recordPath: own.haltRecord,
      log,
      // An owner's halt the audit log records counts too, if halt_record.json is missing or older.
      loggedHalt: () => audit.loggedHalt(),
      // HALT removed by hand: the log says the halt ended before anything acts on it.
      beforeVerdict: auditHaltRemoval({ haltPath: paths.ownerHalt, audit }),
    },
  );
  // A first look before any decision or send: halts of earlier runs count, and one that a stop
  // left lasting but that is off now is recorded as ended now (every earlier approval is void).
  await killSwitch.check();
  return killSwitch;
}

/** Telegram Business: the owner's connection, what people wrote to him, the check at the send call. */
async function openOwnerVoice(config: Config, own: HarnessPaths, edges: CoreEdges, audit: AuditLog, log: Logger): Promise<OwnerVoice> {
  return new OwnerVoice({
    store: await ConnectionStore.open(own.businessConnection, log),
    chats: await ChatLog.open(own.businessChats, () => edges.clock.now(), log),
    ignored: await IgnoredConnections.open(own.businessIgnored, log),
    ownerUserId: config.ownerUserId,
    reviewerIds: config.reviewerIds,
    clock: edges.clock,
    audit,
    log,
    botUsername: edges.business?.botUsername ?? null,
    ...(edges.business?.fetchConnection ? { fetchConnection: edges.business.fetchConnection } : {}),
    ...(edges.business?.tell ? { tell: edges.business.tell } : {}),
  });
}

/** What the desk is built on, once the files, the switch and the owner's voice are open. */
interface DeskParts extends CoreFiles {
  readonly reviewChat: ReviewChat;
  readonly killSwitch: WatchedKillSwitch;
  readonly voice: OwnerVoice;
  readonly removedItems: RemovedItemsStore;
}

/** The review desk, with the one send path it sends through. */
function buildDesk(config: Config, edges: CoreEdges, parts: DeskParts, log: Logger): ReviewDesk {
  const { store, audit, archive, liveLeftAlone, reviewChat, killSwitch, removedItems } = parts;
  return new ReviewDesk({
    store,
    audit,
    archive,
    // Archiving rewrites the store: test mode archives nothing while live drafts are in it (a live daemon archives its drafts too).
    ...(liveLeftAlone > 0 ? {} : { retentionMs: config.draftRetentionMs }),
    clock: edges.clock,
    reviewChat,
    reviewerIds: config.reviewerIds,
    deferForMs: config.deferForMs,
    confirmOver: config.audienceConfirmOver,
    undoWindowMs: config.undoWindowMs,
    remindBeforeMs: config.remindBeforeMs,
    botUsername: edges.business?.botUsername ?? null,
    testMode: config.mode === "test",
    // The switch when an approval is applied: one made while halted, or received before a halt that came
    // and went while it waited, is answered as halted at once (the send call's own verdict).
    sendsHalted: (since) => approvalHalt(killSwitch, since === undefined ? undefined : new Date(since).toISOString()),
    // A halt that begins while approvals wait halts them at once (the send call's own verdict).
    approvalHalted: (draft) => approvalHalt(killSwitch, draft.approval?.at),
    removedItems,
    redact: edges.redact,
    channels: edges.channels ?? null,
    ...(edges.backoffs ? { postBackoff: edges.backoffs.reviewPost } : {}),
    log,
    makeSender: (ledger) => buildSendPath(config, edges, parts, ledger, log),
  });
}

/** The one guarded send path: kill switch, approval, audience and sender checks, limiter, the call. */
function buildSendPath(config: Config, edges: CoreEdges, parts: DeskParts, ledger: DraftLedger, log: Logger): SendPath {
  return new SendPath({
    ledger,
    killSwitch: parts.killSwitch,
    limiter: edges.limiter,
    call: edges.sendCall,
    reviewerIds: config.reviewerIds,
    clock: edges.clock,
    log,
    ...(edges.backoffs ? { backoff: edges.backoffs.send, audienceBackoff: edges.backoffs.audienceCheck } : {}),
    ...(edges.audience ? { checkAudience: audienceCheck(edges.audience, config.audienceConfirmOver) } : {}),
    checkSender: (draft, fresh) => parts.voice.problemAtSend(draft, fresh),
    channels: edges.channels ?? null,
    audienceConfirmOver: config.audienceConfirmOver,
    ...(edges.channelLimiter ? { channelLimiter: edges.channelLimiter } : {}),
  });
}

/** Brings the desk level with its audit log, hooks it to the kill switch, and starts archiving. */
async function startDesk(desk: ReviewDesk, killSwitch: WatchedKillSwitch, clock: Clock, log: Logger): Promise<ArchivingSchedule> {
  await reconcileAudit(desk);
  // When a halt ends, the drafts it stopped offer 👍 Send again (a start does the same: resumeDrafts).
  killSwitch.onHaltEnded(() => void desk.liftHalts());
  // When a halt begins, the approvals waiting out their window or a retry are halted at once (a start does the same: resumeDrafts).
  killSwitch.onHaltStarted(() => void desk.haltApprovals());
  // At start, then daily; a failed pass (a full disk) is logged, shown by /healthz, and tried again within the hour.
  // Each pass also drops the originals kept for redacted drafts that can no longer use them (a failure there only warns).
  const tidy = () =>
    desk
      .sweepRemovedItems()
      .catch((err: unknown) => log.warn({ err }, "could not drop the originals of finished redacted drafts; tried again later"));
  return scheduleArchiving(clock, () => desk.archiveOld().finally(tidy), log);
}

/** The intake: payloads checked, redacted, their audience read, then posted through the desk. */
function buildIntake(
  config: Config,
  edges: CoreEdges,
  desk: ReviewDesk,
  parts: Pick<DeskParts, "reviewChat" | "removedItems" | "voice">,
): Intake {
  return new Intake({
    desk,
    reviewChat: parts.reviewChat,
    clock: edges.clock,
    ttlMs: config.draftTtlMs,
    redact: edges.redact,
    testMode: config.mode === "test",
    removedItems: parts.removedItems,
    ...(edges.audience ? { audience: edges.audience } : {}),
    sender: parts.voice,
    channels: edges.channels ?? null,
  });
}

/** Test mode keeps its halt record, assumed connection and made-up messages apart (see testModePaths). */
function ownPaths(config: Config, paths: HarnessPaths): HarnessPaths {
  return config.mode === "test" ? testModePaths(paths) : paths;
}

/**
 * Where test mode keeps the state a live daemon decides by: beside the live files, never in them. Its halt
 * record (a halt seen on the simulated clock would void the live approvals, up to a time days ahead), and its
 * assumed business connection, ignored connections and made-up messages (never evidence of the 24 h window,
 * nor quoted on a real post).
 */
function testModePaths<P extends { haltRecord: string; businessConnection: string; businessChats: string; businessIgnored: string }>(
  paths: P,
): P {
  const beside = (path: string) => path.replace(/\.json$/, ".test-mode.json");
  return {
    ...paths,
    haltRecord: beside(paths.haltRecord),
    businessConnection: beside(paths.businessConnection),
    businessChats: beside(paths.businessChats),
    businessIgnored: beside(paths.businessIgnored),
  };
}
