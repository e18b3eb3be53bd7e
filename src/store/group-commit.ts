/**
 * One queue per file: writes never interleave, and the appends that arrive
 * while a write+fsync is in flight are batched into the next single
 * write+fsync ("group commit"), so N concurrent appends cost one fsync, not N.
 * Exclusive jobs (compaction, close) run between batches, in queue order.
 */
export class GroupCommit<I> {
  private readonly tasks: Array<Batch<I> | Job> = [];
  private draining = false;

  /**
   * @param commit writes one batch durably; if it throws, every append of
   *   that batch rejects with its error.
   */
  constructor(private readonly commit: (items: readonly I[]) => Promise<void>) {}

  /** Queues `items`; resolves once the batch holding them is committed. */
  submit(items: readonly I[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const last = this.tasks.at(-1);
      let batch: Batch<I>;
      if (last?.kind === "batch") {
        batch = last;
      } else {
        batch = { kind: "batch", items: [], waiters: [] };
        this.tasks.push(batch);
      }
      for (const item of items) batch.items.push(item);
      batch.waiters.push({ resolve, reject });
      this.kick();
    });
  }

  /** Runs `fn` alone, after everything queued before it. */
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.tasks.push({ kind: "job", run: () => fn().then(resolve, reject) });
      this.kick();
    });
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = true;
    // Start on a microtask, so appends made in the same tick share the first write.
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) {
      if (task.kind === "job") {
        await task.run();
        continue;
      }
      try {
        await this.commit(task.items);
        for (const w of task.waiters) w.resolve();
      } catch (err) {
        for (const w of task.waiters) w.reject(err);
      }
    }
    this.draining = false;
  }
}

interface Batch<I> {
  kind: "batch";
  items: I[];
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

interface Job {
  kind: "job";
  run: () => Promise<void>;
}
