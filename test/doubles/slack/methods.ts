/**
 * The Web API methods the Slack channel calls, answered as Slack documents
 * them: the same envelopes (`ok`, `error`, `response_metadata.next_cursor`)
 * and error codes, checked against the double's state.
 */
import { type Args, bool, json, page, str } from "./args.js";
import { type Conversation, nextTs, type SlackDoubleState, type StoredMessage, type TokenIdentity } from "./state.js";

/** One answer: HTTP status (200 unless said), extra headers, and the JSON body. */
export interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: Record<string, unknown>;
}

/** What a handler gets: the world, the caller's identity, its arguments, and the time. */
export interface CallContext {
  readonly state: SlackDoubleState;
  readonly caller: TokenIdentity;
  readonly args: Args;
  readonly nowMs: number;
}

type Handler = (ctx: CallContext) => Answer;

/** Slack's limit on a message's text. */
export const TEXT_LIMIT = 40_000;

const fail = (error: string, extra: Record<string, unknown> = {}): Answer => ({ body: { ok: false, error, ...extra } });
const ok = (body: Record<string, unknown>): Answer => ({ body: { ok: true, ...body } });

/** The conversation `args.channel` names if the caller can see it; else the error Slack gives. */
function visible(ctx: CallContext, key = "channel"): Conversation | Answer {
  const id = str(ctx.args, key);
  if (id === undefined || id === "") return fail("invalid_arguments");
  const c = ctx.state.conversations.get(id);
  if (c === undefined) return fail("channel_not_found");
  if (c.kind !== "public" && !c.members.includes(ctx.caller.userId)) return fail("channel_not_found");
  return c;
}

const isAnswer = (x: Conversation | Answer): x is Answer => "body" in x;

function authTest(ctx: CallContext): Answer {
  const { state, caller } = ctx;
  return ok({
    url: `https://${state.teamDomain}.slack.com/`,
    team: state.teamName,
    user: caller.userName,
    team_id: state.teamId,
    user_id: caller.userId,
    ...(caller.botId === undefined ? {} : { bot_id: caller.botId }),
  });
}

function postMessage(ctx: CallContext): Answer {
  const c = visible(ctx);
  if (isAnswer(c)) return c;
  if (c.archived) return fail("is_archived");
  if (!c.members.includes(ctx.caller.userId)) return fail("not_in_channel");
  const text = str(ctx.args, "text");
  if (text === undefined || text === "") return fail("no_text");
  if (text.length > TEXT_LIMIT) return fail("msg_too_long");
  const threadTs = str(ctx.args, "thread_ts");
  const list = ctx.state.messages.get(c.id) ?? [];
  if (threadTs !== undefined && !list.some((m) => m.ts === threadTs && m.thread_ts === undefined)) return fail("thread_not_found");
  const metadata = readMetadata(ctx.args);
  if (metadata === "invalid_metadata_format" || metadata === "invalid_metadata_schema") return fail(metadata);
  const message: StoredMessage = {
    type: "message",
    ts: nextTs(ctx.nowMs),
    text,
    user: ctx.caller.userId,
    ...(ctx.caller.botId === undefined ? {} : { bot_id: ctx.caller.botId }),
    ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
    ...(metadata === undefined ? {} : { metadata }),
    postedWith: { ...ctx.args },
  };
  ctx.state.messages.set(c.id, [...list, message]);
  return ok({ channel: c.id, ts: message.ts, message: withoutArgs(message, true) });
}

function readMetadata(args: Args): StoredMessage["metadata"] | "invalid_metadata_format" | "invalid_metadata_schema" | undefined {
  if (args.metadata === undefined) return undefined;
  const m = json(args, "metadata");
  if (m === "bad" || m === null || typeof m !== "object") return "invalid_metadata_format";
  const { event_type, event_payload } = m as { event_type?: unknown; event_payload?: unknown };
  if (typeof event_type !== "string" || event_payload === null || typeof event_payload !== "object") return "invalid_metadata_schema";
  return { event_type, event_payload: event_payload as Record<string, unknown> };
}

/** A message as the history methods answer it: metadata only when asked for (include_all_metadata). */
function withoutArgs(m: StoredMessage, metadata: boolean): Record<string, unknown> {
  const { postedWith: _, metadata: meta, ...rest } = m;
  return metadata && meta !== undefined ? { ...rest, metadata: meta } : rest;
}

function inWindow(m: StoredMessage, args: Args): boolean {
  const oldest = Number(str(args, "oldest") ?? "0");
  const latest = Number(str(args, "latest") ?? "Infinity");
  const ts = Number(m.ts);
  const inclusive = bool(args, "inclusive");
  return (inclusive ? ts >= oldest : ts > oldest) && (inclusive ? ts <= latest : ts < latest);
}

function history(ctx: CallContext): Answer {
  const c = visible(ctx);
  if (isAnswer(c)) return c;
  if (!c.members.includes(ctx.caller.userId)) return fail("not_in_channel");
  const top = (ctx.state.messages.get(c.id) ?? []).filter((m) => m.thread_ts === undefined && inWindow(m, ctx.args)).reverse();
  const p = page(top, ctx.args, 999);
  if (p === "invalid_cursor") return fail("invalid_cursor");
  const withMeta = bool(ctx.args, "include_all_metadata");
  return ok({
    messages: p.slice.map((m) => withoutArgs(m, withMeta)),
    has_more: p.next !== "",
    response_metadata: { next_cursor: p.next },
  });
}

function replies(ctx: CallContext): Answer {
  const c = visible(ctx);
  if (isAnswer(c)) return c;
  const ts = str(ctx.args, "ts");
  if (ts === undefined) return fail("invalid_arguments");
  const list = ctx.state.messages.get(c.id) ?? [];
  const parent = list.find((m) => m.ts === ts && m.thread_ts === undefined);
  if (parent === undefined) return fail("thread_not_found");
  const thread = [parent, ...list.filter((m) => m.thread_ts === ts && inWindow(m, ctx.args))];
  const p = page(thread, ctx.args, 1000);
  if (p === "invalid_cursor") return fail("invalid_cursor");
  const withMeta = bool(ctx.args, "include_all_metadata");
  return ok({
    messages: p.slice.map((m) => withoutArgs(m, withMeta)),
    has_more: p.next !== "",
    response_metadata: { next_cursor: p.next },
  });
}

function info(ctx: CallContext): Answer {
  const c = visible(ctx);
  if (isAnswer(c)) return c;
  const channel: Record<string, unknown> = {
    id: c.id,
    is_channel: c.kind === "public" || c.kind === "private",
    is_group: false,
    is_im: c.kind === "im",
    is_mpim: c.kind === "mpim",
    is_private: c.kind !== "public",
    is_archived: c.archived === true,
    is_shared: c.shared === true || c.extShared === true,
    is_ext_shared: c.extShared === true,
    is_org_shared: c.shared === true,
    is_member: c.members.includes(ctx.caller.userId),
  };
  if (c.name !== undefined && c.kind !== "im") channel.name = c.name;
  if (c.kind === "im") channel.user = c.members.find((u) => u !== ctx.caller.userId) ?? ctx.caller.userId;
  if (bool(ctx.args, "include_num_members") && c.kind !== "im" && !c.hideMemberCount) channel.num_members = c.members.length;
  return ok({ channel });
}

function members(ctx: CallContext): Answer {
  const c = visible(ctx);
  if (isAnswer(c)) return c;
  const p = page(c.members, ctx.args, 1000);
  if (p === "invalid_cursor") return fail("invalid_cursor");
  return ok({ members: p.slice, response_metadata: { next_cursor: p.next } });
}

function usersInfo(ctx: CallContext): Answer {
  const id = str(ctx.args, "user");
  if (id === undefined) return fail("invalid_arguments");
  const u = ctx.state.users.get(id);
  if (u === undefined) return fail("user_not_found");
  return ok({
    user: { id: u.id, name: u.name, real_name: u.real_name, profile: { display_name: u.display_name ?? "", real_name: u.real_name ?? "" } },
  });
}

function permalink(ctx: CallContext): Answer {
  const c = visible(ctx);
  if (isAnswer(c)) return c;
  const ts = str(ctx.args, "message_ts");
  const m = (ctx.state.messages.get(c.id) ?? []).find((x) => x.ts === ts);
  if (ts === undefined || m === undefined) return fail("message_not_found");
  const thread = m.thread_ts === undefined ? "" : `?thread_ts=${m.thread_ts}&cid=${c.id}`;
  return ok({ channel: c.id, permalink: `https://${ctx.state.teamDomain}.slack.com/archives/${c.id}/p${ts.replace(".", "")}${thread}` });
}

/** Every method the double answers; any other is `unknown_method`, as Slack says. */
export const METHODS: Readonly<Record<string, Handler>> = {
  "auth.test": authTest,
  "chat.postMessage": postMessage,
  "chat.getPermalink": permalink,
  "conversations.info": info,
  "conversations.history": history,
  "conversations.replies": replies,
  "conversations.members": members,
  "users.info": usersInfo,
};
