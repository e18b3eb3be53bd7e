import { AsyncLocalStorage } from "node:async_hooks";

/** The Telegram update whose handling is running, as the async context carries it. */
export interface UpdateScope {
  readonly updateId: number;
  /** Set when the update must be handled again at the next start (its decision could not be saved). */
  retry: boolean;
}

const storage = new AsyncLocalStorage<UpdateScope>();

/**
 * Runs `work` as the handling of update `updateId`: every call it makes, and
 * every review-chat job it queues, can ask `currentUpdate()` which update it
 * answers. The journal uses this to note "an answer began" before the first
 * message of an update goes out, so a restart never answers it twice.
 */
export function runInUpdate<T>(updateId: number, work: (scope: UpdateScope) => Promise<T>): Promise<T> {
  const scope: UpdateScope = { updateId, retry: false };
  return storage.run(scope, () => work(scope));
}

/** The update being handled here, if any. */
export function currentUpdate(): UpdateScope | undefined {
  return storage.getStore();
}

/**
 * Asks for the running update to be handled again at the next start instead
 * of being marked handled: a decision that could not be written to disk
 * ("applied at the next start if it was journaled").
 */
export function retryAtNextStart(): void {
  const scope = storage.getStore();
  if (scope) scope.retry = true;
}
