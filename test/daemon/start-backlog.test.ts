import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { handleStartBacklog } from "../../src/daemon/start-backlog.js";

// Issue 19 item 3: the updates that waited while the daemon was down are handled, in order, before recovery's sends.

const upd = (id: number) => ({ update_id: id }) as Update;

describe("handleStartBacklog", () => {
  it("journals each page before handling it, handles updates one by one in order, and confirms them with the last offset", async () => {
    const steps: string[] = [];
    const pages = [[upd(5), upd(6)], [upd(7)], []];
    const offsets: number[] = [];
    let running = 0;
    const handled = await handleStartBacklog({
      fetch: async (args) => {
        offsets.push(args.offset);
        expect(args.timeout).toBe(0);
        return pages.shift()!;
      },
      journal: {
        record: async (updates) => void steps.push(`journal ${updates.map((u) => u.update_id).join(",")}`),
        isDone: () => false,
        finish: async (id) => void steps.push(`finish ${id}`),
      },
      handleUpdate: async (u) => {
        running++;
        expect(running).toBe(1); // one at a time
        await new Promise((r) => setImmediate(r));
        steps.push(`handle ${u.update_id}`);
        running--;
      },
      signal: new AbortController().signal as never,
      log: { debug: () => {}, warn: () => {}, error: () => {} },
      onHeld: (id) => steps.push(`held ${id}`),
    });
    expect(handled).toBe(3);
    expect(offsets).toEqual([0, 7, 8]);
    expect(steps).toEqual([
      ...["journal 5,6", "held 5", "handle 5", "finish 5", "held 6", "handle 6", "finish 6"],
      ...["journal 7", "held 7", "handle 7", "finish 7"],
    ]);
  });

  it("an update whose handling fails is logged and the rest still run", async () => {
    const errors: unknown[] = [];
    const pages = [[upd(1), upd(2)], []];
    const seen: number[] = [];
    await handleStartBacklog({
      fetch: async () => pages.shift()!,
      journal: { record: async () => {}, isDone: () => false, finish: async () => {} },
      handleUpdate: async (u) => {
        seen.push(u.update_id);
        if (u.update_id === 1) throw new Error("boom");
      },
      signal: new AbortController().signal as never,
      log: { debug: () => {}, warn: () => {}, error: (obj) => errors.push(obj) },
    });
    expect(seen).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
  });
});
