import { describe, expect, it } from "vitest";
import { Closers } from "../../src/daemon/closers.js";

describe("Closers", () => {
  it("closes in reverse order, and keeps closing past a part that fails", async () => {
    const order: string[] = [];
    const errors: string[] = [];
    const closers = new Closers({ error: (obj: { part?: string }) => errors.push(String(obj.part)) });
    closers.push("first", () => order.push("first"));
    closers.push("second", () => {
      throw new Error("boom");
    });
    closers.push("third", async () => order.push("third"));
    await closers.closeAll();
    expect(order).toEqual(["third", "first"]);
    expect(errors).toEqual(["second"]);
  });
});
