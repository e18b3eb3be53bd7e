import { describe, expect, it } from "vitest";
import { KeyedQueue } from "../../src/serial/keyed-queue.js";

/** A task that finishes when told to, recording when it started and ended. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return {
    open,
    task: async () => {
      log.push(`start ${name}`);
      await opened;
      log.push(`end ${name}`);
      return name;
    },
  };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

describe("KeyedQueue", () => {
  it("runs tasks of one key one after another, in arrival order", async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const a = gate(log, "a");
    const b = gate(log, "b");
    const ra = q.run("k", a.task);
    const rb = q.run("k", b.task);
    await flush();
    expect(log).toEqual(["start a"]);
    b.open(); // b may not start before a ends, even when ready
    await flush();
    expect(log).toEqual(["start a"]);
    a.open();
    expect(await Promise.all([ra, rb])).toEqual(["a", "b"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it("runs tasks of different keys side by side", async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const a = gate(log, "a");
    const b = gate(log, "b");
    void q.run("one", a.task);
    void q.run("two", b.task);
    await flush();
    expect(log).toEqual(["start a", "start b"]);
    a.open();
    b.open();
    await q.idle();
  });

  it("goes on with the next task after one fails, and hands the failure to its caller only", async () => {
    const q = new KeyedQueue();
    const failed = q.run("k", async () => {
      throw new Error("boom");
    });
    const next = q.run("k", async () => "next");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("next");
  });

  it("idle() waits for every task queued so far, also ones queued while waiting", async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const a = gate(log, "a");
    void q.run("k", a.task).then(() => q.run("k", async () => void log.push("follow-up")));
    let idle = false;
    const waiting = q.idle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(false);
    a.open();
    await waiting;
    expect(log).toEqual(["start a", "end a", "follow-up"]);
  });
});
