/** Where a closer that fails is reported (pino fits). */
export interface CloserLog {
  error(obj: object, msg: string): void;
}

/**
 * The daemon's shutdown as a stack: each part registers how to close itself
 * as soon as it is open, and `closeAll` closes them in reverse order (the
 * last opened first). A part that fails to close is logged and the rest still
 * close, so a half-started daemon stops as cleanly as a running one.
 */
export class Closers {
  private readonly stack: Array<{ readonly name: string; readonly close: () => unknown }> = [];

  constructor(private readonly log: CloserLog) {}

  /** Registers `close` for the part just opened. */
  push(name: string, close: () => unknown): void {
    this.stack.push({ name, close });
  }

  /** Closes every registered part, last first; never throws. */
  async closeAll(): Promise<void> {
    for (let next = this.stack.pop(); next !== undefined; next = this.stack.pop()) {
      try {
        await next.close();
      } catch (err) {
        this.log.error({ err, part: next.name }, "a part of the daemon did not close cleanly");
      }
    }
  }
}
