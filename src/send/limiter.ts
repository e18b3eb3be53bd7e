/** Runs work for one destination chat within Telegram's limits. */
export interface DestinationLimiter {
  /**
   * Runs `work` when `chatId` has a free slot. The work may call `answered`
   * once its call's answer is in (the request reached the service before
   * then): a limiter that counts from a send's end may count from that moment
   * instead, so what the work does after the call (its fsync) does not slow
   * the next send. One that ignores it counts from the work's end.
   */
  schedule<T>(chatId: string, work: (answered?: () => void) => Promise<T>): Promise<T>;
  /** Holds every job of `chatId` back for `ms` (after a 429's retry_after). */
  pause(chatId: string, ms: number): void;
  stop(): Promise<void>;
}

/** A chat id that names a group or channel (negative id or @username) rather than a user. */
export function isGroupChat(chatId: string): boolean {
  return chatId.startsWith("-") || chatId.startsWith("@");
}

/** No limits at all: test mode, where nothing reaches Telegram. */
export function unlimited(): DestinationLimiter {
  return { schedule: (_chatId, work) => work(), pause() {}, async stop() {} };
}
