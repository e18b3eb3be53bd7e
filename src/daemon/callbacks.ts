import { harnessPaths } from "../app/paths.js";
import type { Core } from "../app/core.js";
import { CallbackCursorFile } from "../callbacks/cursor-file.js";
import { CallbackDelivery } from "../callbacks/delivery.js";
import type { Config } from "../config/config.js";
import type { EventFeed } from "../drafts/feed-event.js";
import type { Logger } from "../log/logger.js";

/** Push callbacks as the daemon runs them: the delivery, and how to stop it. */
export interface RunningCallbacks {
  readonly delivery: CallbackDelivery;
  stop(): Promise<void>;
}

/**
 * Starts push callbacks when CALLBACK_URL is set: delivery reads `feed` from
 * the cursor in HARNESS_DIR and is woken by every durable change of the desk.
 * Null when callbacks are off.
 */
export async function startCallbacks(config: Config, core: Core, feed: EventFeed, log: Logger): Promise<RunningCallbacks | null> {
  if (config.callback === null) return null;
  const delivery = await CallbackDelivery.start({
    url: config.callback.url,
    secret: config.callback.secret,
    feed,
    cursor: new CallbackCursorFile(harnessPaths(config.harnessDir).callbackCursor),
    clock: core.desk.clock,
    log,
  });
  const unsubscribe = core.desk.onTransition(() => delivery.wake());
  log.info({ callback_url: (await delivery.status()).url }, "push callbacks on: every event is POSTed to CALLBACK_URL");
  return {
    delivery,
    async stop() {
      unsubscribe();
      await delivery.close();
    },
  };
}
