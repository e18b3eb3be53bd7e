import type { Api, Composer, Context } from "grammy";
import type { InlineKeyboardMarkup, MessageEntity } from "grammy/types";
import { harnessPaths } from "../app/paths.js";
import type { Core } from "../app/core.js";
import type { CallbackDelivery } from "../callbacks/delivery.js";
import type { Clock } from "../clock/clock.js";
import type { Config } from "../config/config.js";
import { atLocalTime, startSchedule, type Schedule } from "../clock/schedule.js";
import { digestCounts, digestText } from "../owner/digest-text.js";
import { localMinute } from "../clock/local-time.js";
import { buildStatusReport, type StatusReport } from "../owner/status-report.js";
import { ownerCommands, registerOwnerCommands, type OwnerCommandHandlers } from "../telegram/owner-commands.js";
import { ReactionWatch } from "../telegram/reaction-watch.js";
import { emptyReportText, postReport, type ReportPostDeps } from "../report/report-post.js";
import { weeklyDue, type Weekday } from "../clock/week.js";
import { catchUpWeeks, settleWeek } from "../report/weekly-report.js";
import type { Logger } from "../log/logger.js";
import type { Role } from "../drafts/record.js";

/** The window /report covers: the last seven days. */
const WEEK_MS = 7 * 24 * 3_600_000;
/** The window the daily digest covers. */
const DIGEST_WINDOW_MS = 24 * 3_600_000;

/** What the owner's features are built from: the running core and the review chat. */
export interface OwnerFeatureDeps {
  readonly config: Config;
  readonly core: Core;
  /** Posts in the review chat within its rate limit (TelegramReviewChat.say). */
  readonly say: (text: string, buttons?: InlineKeyboardMarkup, thread?: number | null, entities?: MessageEntity[]) => Promise<unknown>;
  /** The role whose topic a thread is (REVIEW_TOPICS=role); absent: no topics. */
  readonly topicRole?: (threadId: number) => Role | null;
  /** Answers in the review chat as a reply to a message (TelegramReviewChat.answer). */
  readonly answer?: (text: string, replyTo: number, thread: number | null) => Promise<unknown>;
  /** Posts a picture in the review chat within its rate limit (TelegramReviewChat.sendPhoto). */
  readonly sendPhoto: ReportPostDeps["sendPhoto"];
  readonly api: Api;
  readonly clock: Clock;
  readonly log: Logger;
  /** Push callbacks, whose backlog and last error the status shows; null when off. */
  readonly callbacks?: CallbackDelivery | null;
}

/** The owner's side of the live daemon, as run.ts wires it. */
export interface OwnerFeatures {
  /** The review chat's commands, for `bot.use`. */
  readonly commands: Composer<Context>;
  /** The /resume confirmation taps, for `bot.use` before the decision handlers (which refuse unknown buttons). */
  readonly confirmations: Composer<Context>;
  /** Notes when a reaction last arrived, for /status: `bot.use` before the decision handlers. */
  readonly reactionWatch: Composer<Context>;
  /** The status report (/status, `GET /status`). */
  readonly status: () => Promise<StatusReport>;
  /** Registers the command menu and starts the daily digest (DIGEST_HOUR) and the weekly report (REPORT_DAY). */
  start(): Promise<void>;
  /** Stops the digest and the weekly report; waits for one being posted. */
  stop(): Promise<void>;
}

/**
 * Everything the owner operates the daemon with from Telegram: the commands
 * (/pending, /status, /halt, /resume, /help), the status report the API
 * serves too, and the daily digest. Built before the daemon polls, started
 * once the API is up.
 */
export function ownerFeatures(deps: OwnerFeatureDeps): OwnerFeatures {
  const { config, clock, log } = deps;
  const reactions = new ReactionWatch(config.reviewChatId, clock);
  const status = statusOf(deps, reactions);
  const reportDeps = reportPostDeps(deps);
  const { commands, confirmations } = commandsOf(deps, status, reportDeps);
  let digest: Schedule | undefined;
  let weekly: Schedule | undefined;
  return {
    commands,
    confirmations,
    reactionWatch: reactions.middleware(),
    status,
    async start() {
      await registerOwnerCommands(deps.api, config.reviewChatId, log);
      if (config.reportDay !== null) weekly = startWeekly(deps, reportDeps, config.reportDay);
      if (config.digestHour !== null) digest = startDigest(deps, config.digestHour);
    },
    async stop() {
      await weekly?.stop();
      await digest?.stop();
    },
  };
}

/** The status report (/status and the API's GET /status), read fresh at each call. */
function statusOf(deps: OwnerFeatureDeps, reactions: ReactionWatch): () => Promise<StatusReport> {
  const { config, core, clock } = deps;
  return async () =>
    buildStatusReport({
      mode: config.mode,
      nowMs: clock.now(),
      drafts: core.desk.list(),
      killSwitch: await core.killSwitch.check(),
      digestHour: config.digestHour,
      callbacks: (await deps.callbacks?.status()) ?? null,
      lastReactionMs: reactions.lastReactionMs,
      business: core.voice.status(),
      warnings: core.archive.problems(),
    });
}

/** What the weekly report reads (the audit log, the store, the archive) and how it posts its picture. */
function reportPostDeps(deps: OwnerFeatureDeps): ReportPostDeps {
  const { config, core, clock } = deps;
  const paths = harnessPaths(config.harnessDir);
  return {
    files: {
      audit: paths.audit,
      drafts: paths.drafts,
      archive: paths.archive,
      source: core.audit.source,
      proves: (line, offset) => core.audit.proves(line, offset),
    },
    sendPhoto: deps.sendPhoto,
    audit: core.audit,
    now: () => clock.now(),
  };
}

/** The owner's commands and taps, wired to the desk, the kill switch, the status report and /report. */
function commandsOf(deps: OwnerFeatureDeps, status: () => Promise<StatusReport>, reportDeps: ReportPostDeps): OwnerCommandHandlers {
  const { config, core, clock, log } = deps;
  return ownerCommands({
    reviewChatId: config.reviewChatId,
    reviewerIds: config.reviewerIds,
    say: deps.say,
    ...(deps.topicRole ? { topicRole: deps.topicRole } : {}),
    ...(deps.answer ? { answer: deps.answer } : {}),
    surfaces: core.desk.decisionSurfaces,
    audit: core.audit,
    haltPath: harnessPaths(config.harnessDir).ownerHalt,
    killSwitch: core.killSwitch,
    drafts: () => core.desk.list(),
    status,
    now: () => clock.now(),
    deferForMs: config.deferForMs,
    log,
    report: async (userId) => {
      const outcome = await postReport(
        reportDeps,
        { sinceMs: clock.now() - WEEK_MS, untilMs: clock.now() },
        { trigger: "command", userId },
      );
      return outcome.posted ? null : emptyReportText(outcome.report);
    },
  });
}

/** The weekly report on REPORT_DAY at 09:00 local time, the weeks missed while stopped caught up first. */
function startWeekly(deps: OwnerFeatureDeps, reportDeps: ReportPostDeps, day: Weekday): Schedule {
  const { clock, log } = deps;
  const weeklyDeps = { ...reportDeps, day, say: deps.say, log };
  const weekly = startSchedule({
    clock,
    next: weeklyDue(day),
    first: () => catchUpWeeks(weeklyDeps),
    run: async (dueMs) => void (await settleWeek(weeklyDeps, dueMs)),
    onError: (err) => log.error({ err }, "could not post the weekly report; the next one is due next week"),
  });
  log.info({ next_report: localMinute(weekly.nextAt!) }, "weekly report scheduled (REPORT_DAY, 09:00 local time)");
  return weekly;
}

/** The daily digest at DIGEST_HOUR, local time. */
function startDigest(deps: OwnerFeatureDeps, hour: number): Schedule {
  const { core, clock, log } = deps;
  const digest = startSchedule({
    clock,
    next: atLocalTime({ hour }),
    run: async () => {
      const now = clock.now();
      await deps.say(digestText(digestCounts(core.desk.list(), now, DIGEST_WINDOW_MS), now, await core.killSwitch.check()));
    },
    onError: (err) => log.error({ err }, "could not post the daily digest; the next one is due tomorrow"),
  });
  log.info({ next_digest: localMinute(digest.nextAt!) }, "daily digest scheduled (DIGEST_HOUR, local time)");
  return digest;
}
