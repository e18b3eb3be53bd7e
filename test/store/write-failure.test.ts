import { open, readFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonlStore, StoreBrokenError } from "../../src/store/jsonl-store.js";
import { memoryLog, rec, tempDir, testRecord, type TestRecord } from "./helpers.js";

/** The FileHandle prototype, to inject failures into the store's own handle. */
async function fileHandleProto(dir: string): Promise<FileHandle> {
  const fh = await open(join(dir, "probe"), "w");
  await fh.close();
  return Object.getPrototypeOf(fh) as FileHandle;
}

const eio = () => Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });

async function setup() {
  const dir = await tempDir();
  const path = join(dir, "drafts.jsonl");
  const store = await JsonlStore.open<TestRecord>({ path, parse: (v) => testRecord.parse(v), log: memoryLog() });
  await store.append([rec("a", 1)]);
  return { dir, path, store, proto: await fileHandleProto(dir) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("JsonlStore: failed writes", () => {
  it("a torn write rejects its whole batch and leaves no partial line", async () => {
    const { path, store, proto } = await setup();
    type RawWrite = (this: FileHandle, data: Uint8Array, off?: number, len?: number) => Promise<unknown>;
    const realWrite = proto.write as unknown as RawWrite;
    const tornWrite: RawWrite = async function (data, off = 0, len = data.length - off) {
      await realWrite.call(this, data, off, Math.floor(len / 2));
      throw eio();
    };
    vi.spyOn(proto, "write").mockImplementationOnce(tornWrite as unknown as typeof proto.write);
    const batch = [store.append([rec("b", 1)]), store.append([rec("c", 1)])];
    for (const p of batch) await expect(p).rejects.toThrow(/not saved/);
    expect(store.latest.has("b")).toBe(false);
    await store.append([rec("d", 1)]);
    await store.close();
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as TestRecord).draft_id)).toEqual(["a", "d"]);
  });

  it("a failed fsync is never acknowledged and is rolled back", async () => {
    const { path, store, proto } = await setup();
    vi.spyOn(proto, "datasync").mockRejectedValueOnce(eio());
    await expect(store.append([rec("b", 1)])).rejects.toThrow(/EIO/);
    await store.append([rec("c", 1)]);
    await store.close();
    const log = memoryLog();
    const again = await JsonlStore.open<TestRecord>({ path, parse: (v) => testRecord.parse(v), log });
    expect([...again.latest.keys()]).toEqual(["a", "c"]);
    expect(log.warns).toEqual([]);
    await again.close();
  });

  it("turns broken when the rollback fails too, and says what to do", async () => {
    const { store, proto } = await setup();
    vi.spyOn(proto, "write").mockRejectedValueOnce(eio());
    vi.spyOn(proto, "truncate").mockRejectedValueOnce(eio());
    await expect(store.append([rec("b", 1)])).rejects.toThrow(/EIO/);
    const err = await store.append([rec("c", 1)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreBrokenError);
    expect((err as Error).message).toMatch(/restart the daemon/);
    await store.close();
  });
});
