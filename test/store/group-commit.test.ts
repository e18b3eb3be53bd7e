import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/store/group-commit.js";

describe("GroupCommit", () => {
  it("batches what arrives during a commit into the next one, in order", async () => {
    const commits: number[][] = [];
    let release: () => void = () => undefined;
    const q = new GroupCommit<number>(async (items) => {
      commits.push([...items]);
      if (commits.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = q.submit([1]);
    await Promise.resolve(); // let the first commit start
    await Promise.resolve();
    const rest = [q.submit([2]), q.submit([3, 4]), q.submit([5])];
    release();
    await Promise.all([first, ...rest]);
    expect(commits).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("appends in the same tick share one commit", async () => {
    const commits: number[][] = [];
    const q = new GroupCommit<number>(async (items) => void commits.push([...items]));
    await Promise.all(Array.from({ length: 50 }, (_, i) => q.submit([i])));
    expect(commits).toEqual([Array.from({ length: 50 }, (_, i) => i)]);
  });

  it("a failed commit rejects exactly its batch", async () => {
    let n = 0;
    const q = new GroupCommit<string>(async () => {
      n++;
      if (n === 2) throw new Error("disk full");
    });
    const a = q.submit(["a"]);
    await a;
    const b = q.submit(["b"]);
    const c = q.submit(["c"]);
    await expect(b).rejects.toThrow("disk full");
    await expect(c).rejects.toThrow("disk full");
    await expect(q.submit(["d"])).resolves.toBeUndefined();
  });

  it("runs exclusive jobs between batches, in queue order", async () => {
    const seen: string[] = [];
    const q = new GroupCommit<string>(async (items) => void seen.push(items.join("")));
    const p = [q.submit(["a"]), q.exclusive(async () => void seen.push("job")), q.submit(["b"]), q.submit(["c"])];
    await Promise.all(p);
    expect(seen).toEqual(["a", "job", "bc"]);
  });
});
