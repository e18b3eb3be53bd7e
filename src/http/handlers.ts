import type { IncomingMessage } from "node:http";
import type { SubmitOutcome } from "../desk/intake.js";
import type { DraftRecord } from "../drafts/record.js";
import { STATUSES, type DraftStatus } from "../drafts/status.js";
import { isJsonContentType, MAX_BODY_BYTES, readJsonBody } from "./body.js";
import type { EventFeed } from "../drafts/feed-event.js";
import type { StatusReport } from "../owner/status-report.js";
import { ArchiveDamagedError } from "../store/archive.js";
import { errorReply, reply, type JsonReply } from "./respond.js";
import { storeWriteFailure } from "./write-failure.js";

/** The daemon's health as the API uses it (DaemonHealth fits). */
export interface ApiHealth {
  check(): Promise<{
    readonly ok: boolean;
    readonly reasons: readonly string[];
    readonly warnings?: readonly string[];
    readonly business?: object;
  }>;
  /** Told when a submission could not be written. */
  storeFailed(cause: string): void;
}

/** How long a client is asked to wait before submitting again while the store cannot write. */
export const STORE_RETRY_AFTER_SECONDS = 30;

/** What the API submits drafts through (the desk's `Intake` fits). */
export interface DraftIntake {
  submit(input: unknown): Promise<SubmitOutcome>;
}

/** What the API reads drafts from (the `ReviewDesk` fits). */
export interface DraftReader {
  /** The draft's current record, live or archived. */
  find(draftId: string): Promise<DraftRecord | undefined>;
  list(status?: DraftStatus): readonly DraftRecord[];
  /** Resolves once the changes being made durable now are done (the store file may show them already); absent: none wait. */
  committed?(): Promise<void>;
}

/** Everything a handler may use; built once per server. */
export interface HandlerDeps {
  readonly intake: DraftIntake;
  readonly desk: DraftReader;
  readonly events: EventFeed;
  readonly maxBodyBytes?: number;
  /** The daemon's status for `GET /status`; absent: the route answers 404. */
  readonly status?: () => Promise<StatusReport>;
  /** Tells the review chat that the CLI changed the owner's switch (`POST /owner-switch?action=`); absent: 404. */
  readonly ownerSwitchNotice?: (action: "halt" | "resume") => Promise<string | null>;
  /** Serves `GET /healthz` and hears of store failures; absent: /healthz always answers ok. */
  readonly health?: ApiHealth;
}

/** One request as a handler sees it. A handler that resolves null saw the client leave: nothing is answered. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly query: URLSearchParams;
  /** The path segment after `/drafts/`, decoded. */
  readonly draftId?: string;
}

/** Largest page `GET /events` returns, and its default. */
export const MAX_EVENTS_PAGE = 1000;

/** `POST /drafts`: 201 new, 200 replayed key, 400 invalid (field named), 409 reused key, 413, 415, 503 (store or archive unreadable). */
export async function postDraft(deps: HandlerDeps, ctx: RequestContext): Promise<JsonReply | null> {
  if (!isJsonContentType(ctx.req.headers["content-type"])) {
    return errorReply(415, `send the payload with Content-Type: application/json (got ${ctx.req.headers["content-type"] ?? "none"})`);
  }
  const body = await readJsonBody(ctx.req, deps.maxBodyBytes ?? MAX_BODY_BYTES);
  if (body.kind === "aborted") return null;
  if (body.kind === "refused") return body.reply;
  let outcome: SubmitOutcome;
  try {
    outcome = await deps.intake.submit(body.value);
  } catch (err) {
    // Its idempotency_key (or `revises`) may name a draft in a damaged or lost archive file: never taken for new.
    if (err instanceof ArchiveDamagedError) {
      return errorReply(503, `the draft was not accepted: it may repeat an archived draft that cannot be read. ${err.message}`);
    }
    const cause = storeWriteFailure(err);
    if (cause === null) throw err;
    deps.health?.storeFailed(cause);
    return errorReply(
      503,
      `the draft was not accepted: the store cannot write (${cause}). Submit it again later (same idempotency_key); the operator has to fix the disk.`,
      undefined,
      { "Retry-After": String(STORE_RETRY_AFTER_SECONDS) },
    );
  }
  return submitReply(outcome);
}

/** Maps the intake's outcome onto the contract's status codes. */
export function submitReply(outcome: SubmitOutcome): JsonReply {
  if (outcome.ok) return reply(outcome.created ? 201 : 200, outcome.answer);
  if (outcome.kind === "invalid") return errorReply(400, outcome.error, outcome.field);
  return errorReply(409, outcome.error, "idempotency_key");
}

/** `GET /drafts/<draft_id>`: the current record, 404, or 503 when an archive file that may hold it cannot be read. */
export async function getDraft(deps: HandlerDeps, ctx: RequestContext): Promise<JsonReply> {
  const id = ctx.draftId ?? "";
  let draft: DraftRecord | undefined;
  try {
    draft = id === "" ? undefined : await deps.desk.find(id);
  } catch (err) {
    // A damaged or lost archive file that may hold it: say which file (and line), never "not found".
    if (err instanceof ArchiveDamagedError) return errorReply(503, err.message);
    throw err;
  }
  if (!draft) return errorReply(404, `no draft with id ${JSON.stringify(id)}; GET /drafts lists the drafts there are`);
  return reply(200, draft);
}

/** `GET /drafts?status=<status>`: `{"drafts": [...]}`, every draft when `status` is absent. */
export async function listDrafts(deps: HandlerDeps, ctx: RequestContext): Promise<JsonReply> {
  // Never an older status than the store file: a change it shows already is waited for.
  await deps.desk.committed?.();
  const status = ctx.query.get("status");
  if (status === null || status === "") return reply(200, { drafts: deps.desk.list() });
  if (!(STATUSES as readonly string[]).includes(status)) {
    return errorReply(400, `status: unknown status ${JSON.stringify(status)}; use one of ${STATUSES.join(", ")}`, "status");
  }
  return reply(200, { drafts: deps.desk.list(status as DraftStatus) });
}

/** `GET /events?after=<seq>&limit=<n>`: transitions with seq > after, in order, and the next cursor. */
export async function getEvents(deps: HandlerDeps, ctx: RequestContext): Promise<JsonReply> {
  const after = wholeNumber(ctx.query, "after", 0, 0, Number.MAX_SAFE_INTEGER);
  if (typeof after === "string") return errorReply(400, after, "after");
  const limit = wholeNumber(ctx.query, "limit", MAX_EVENTS_PAGE, 1, MAX_EVENTS_PAGE);
  if (typeof limit === "string") return errorReply(400, limit, "limit");
  const page = await deps.events.after(after, limit);
  return reply(200, { events: page.events, last_seq: page.lastSeq });
}

/** `GET /status`: the kill switch, queue depths and today's counts (what /status shows in the review chat). */
export async function getStatus(deps: HandlerDeps): Promise<JsonReply> {
  if (deps.status === undefined) return errorReply(404, "this server has no status; GET /status is served by the live daemon");
  return reply(200, await deps.status());
}

/**
 * `POST /owner-switch?action=halt|resume`: `draft-review halt`/`resume` changed
 * HARNESS_DIR/HALT; the daemon tells the review chat (200 `{"told": text}`), or
 * 409 when the switch does not show that action (nothing is said).
 */
export async function postOwnerSwitch(deps: HandlerDeps, ctx: RequestContext): Promise<JsonReply> {
  if (deps.ownerSwitchNotice === undefined)
    return errorReply(404, "this server has no review chat; POST /owner-switch is served by the live daemon");
  const action = ctx.query.get("action");
  if (action !== "halt" && action !== "resume") return errorReply(400, 'action: must be "halt" or "resume"', "action");
  const told = await deps.ownerSwitchNotice(action);
  if (told === null) return errorReply(409, `the owner's switch does not show a ${action}; the review chat was not told`);
  return reply(200, { told });
}

/**
 * `GET /healthz`: answers without a token, so a supervisor can probe it: 200 `{"ok": true}`, or 503 with the reasons;
 * either carries `warnings` when something that does not stop accepting or sending failed (archiving).
 */
export async function healthz(deps: HandlerDeps): Promise<JsonReply> {
  const health = (await deps.health?.check()) ?? { ok: true, reasons: [] };
  const warnings = health.warnings !== undefined && health.warnings.length > 0 ? { warnings: health.warnings } : {};
  const extra = { ...warnings, ...(health.business ? { business: health.business } : {}) };
  return health.ok ? reply(200, { ok: true, ...extra }) : reply(503, { ok: false, reasons: health.reasons, ...extra });
}

/** A query parameter as a whole number in [min, max], its default when absent, or an error message. */
function wholeNumber(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number | string {
  const text = query.get(name);
  if (text === null || text === "") return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    return `${name}: must be a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`;
  }
  return n;
}
