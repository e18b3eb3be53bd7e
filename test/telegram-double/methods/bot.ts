import type { BotCommand } from "grammy/types";
import { badRequest } from "../errors.js";
import { optBool, optInt, optJson, optString, type Params } from "../params.js";
import type { Handler } from "./state.js";

/** getMe: the bot's identity. */
export const getMe: Handler = (_params, state) => state.world.bot;

function allowedUpdatesParam(params: Params): string[] | undefined {
  const list = optJson(params, "allowed_updates", "can't parse allowed updates JSON array");
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || !list.every((t) => typeof t === "string")) throw badRequest("can't parse allowed updates JSON array");
  return list as string[];
}

/** getUpdates: confirmation by offset, limit, real long polling, remembered allowed_updates. */
export const getUpdates: Handler = (params, state, signal) =>
  state.updates.poll(
    {
      offset: optInt(params, "offset"),
      limit: optInt(params, "limit"),
      timeoutSeconds: optInt(params, "timeout"),
      allowedUpdates: allowedUpdatesParam(params),
    },
    signal,
  );

/** setWebhook: remembers the URL (getUpdates then answers 409) and allowed_updates. */
export const setWebhook: Handler = (params, state) => {
  const url = optString(params, "url") ?? "";
  const allowed = allowedUpdatesParam(params);
  if (allowed !== undefined) state.updates.setAllowed(allowed);
  if (optBool(params, "drop_pending_updates")) state.updates.dropPending();
  state.updates.webhookUrl = url || undefined;
  return true;
};

/** deleteWebhook: forgets the URL; drop_pending_updates empties the queue. */
export const deleteWebhook: Handler = (params, state) => {
  state.updates.webhookUrl = undefined;
  if (optBool(params, "drop_pending_updates")) state.updates.dropPending();
  return true;
};

/** getWebhookInfo: the URL (empty when polling) and the pending count. */
export const getWebhookInfo: Handler = (_params, state) => ({
  url: state.updates.webhookUrl ?? "",
  has_custom_certificate: false,
  pending_update_count: state.updates.unconfirmed().length,
  ...(state.updates.allowedUpdates ? { allowed_updates: [...state.updates.allowedUpdates] } : {}),
});

function commandsKey(params: Params): string {
  const scope = optJson(params, "scope", "can't parse BotCommandScope JSON object") ?? { type: "default" };
  return `${JSON.stringify(scope)}|${optString(params, "language_code") ?? ""}`;
}

/** setMyCommands: 1-32 chars of a-z, 0-9 and _, a description of 1-256 characters. */
export const setMyCommands: Handler = (params, state) => {
  const commands = optJson(params, "commands", "can't parse commands JSON array");
  if (!Array.isArray(commands)) throw badRequest('field "commands" must be of type Array');
  for (const c of commands as Array<Partial<BotCommand>>) {
    if (typeof c.command !== "string" || !/^[a-z0-9_]{1,32}$/.test(c.command)) throw badRequest("BOT_COMMAND_INVALID");
    if (typeof c.description !== "string" || c.description.length < 1 || c.description.length > 256) {
      throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
    }
  }
  state.commands.set(commandsKey(params), commands as BotCommand[]);
  return true;
};

/** getMyCommands: what setMyCommands stored for the scope and language, else []. */
export const getMyCommands: Handler = (params, state) => state.commands.get(commandsKey(params)) ?? [];

/** deleteMyCommands: forgets the list of the scope and language. */
export const deleteMyCommands: Handler = (params, state) => {
  state.commands.delete(commandsKey(params));
  return true;
};

/** answerCallbackQuery: each injected query can be answered once. */
export const answerCallbackQuery: Handler = (params, state) => {
  const id = optString(params, "callback_query_id");
  if (id === undefined || !state.openCallbacks.delete(id)) {
    throw badRequest("query is too old and response timeout expired or query ID is invalid");
  }
  state.answered.push({
    callbackQueryId: id,
    text: optString(params, "text"),
    showAlert: optBool(params, "show_alert") ?? false,
    url: optString(params, "url"),
    at: Date.now(),
  });
  return true;
};

/** close and logOut: accepted, with no other effect. */
export const stubTrue: Handler = () => true;
