import { Composer, GrammyError, type Api, type Context } from "grammy";
import type { FetchedConnection, OwnerVoice } from "../business/owner-voice.js";

/**
 * The Telegram Business updates, handed to the owner's voice: a connection
 * made, changed or removed, and what people write to the owner. Nothing in
 * a business message is ever read as a command or a decision: it is only
 * logged, as data.
 */
export function businessUpdates(voice: OwnerVoice): Composer<Context> {
  const composer = new Composer<Context>();
  composer.on("business_connection", (ctx) => voice.onConnection(ctx.update.business_connection!, ctx.update.update_id));
  composer.on("business_message", (ctx) => voice.onMessage(ctx.update.business_message!));
  return composer;
}

/**
 * getBusinessConnection as the owner's voice needs it: the connection; gone
 * when Telegram refuses the id (400: removed); no answer otherwise.
 */
export function businessConnectionCall(api: Api): (id: string) => Promise<FetchedConnection> {
  return async (id) => {
    try {
      return { ok: true, connection: await api.getBusinessConnection(id) };
    } catch (err) {
      if (err instanceof GrammyError) return { ok: false, gone: err.error_code === 400, reason: err.description };
      return { ok: false, gone: false, reason: `Telegram did not answer: ${(err as Error).message}` };
    }
  };
}
