import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JsonlStore, StoreCorruptError } from "../../src/store/jsonl-store.js";
import { encodeLine } from "../../src/store/line-codec.js";
import { memoryLog, rec, tempDir, testRecord, type TestRecord } from "./helpers.js";

const opened: Array<JsonlStore<TestRecord>> = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function openAt(path: string, log = memoryLog(), compactAfterLines?: number) {
  const store = await JsonlStore.open<TestRecord>({
    path,
    parse: (v) => testRecord.parse(v),
    log,
    ...(compactAfterLines ? { compactAfterLines } : {}),
  });
  opened.push(store);
  return { store, log };
}

async function storeWith(records: TestRecord[]) {
  const path = join(await tempDir(), "harness", "telegram_drafts.jsonl");
  const { store } = await openAt(path);
  await store.append(records);
  await store.close();
  return path;
}

describe("JsonlStore: round trip", () => {
  it("creates a missing directory and file (mode 0600) as an empty store", async () => {
    const path = join(await tempDir(), "a", "b", "drafts.jsonl");
    const { store } = await openAt(path);
    expect(store.latest.size).toBe(0);
    expect(store.lineCount).toBe(0);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it("reads back the latest version of each draft, in first-seen order", async () => {
    const odd = ['we"ird\\id', "ünï-çødé 🎉", "plain"];
    const path = await storeWith([rec("a", 1), rec(odd[0]!, 1, "line\nbreak"), rec("b", 1), rec("a", 2), rec(odd[1]!, 1), rec(odd[2]!, 1)]);
    const { store, log } = await openAt(path);
    expect([...store.latest.keys()]).toEqual(["a", odd[0], "b", odd[1], odd[2]]);
    expect(store.latest.get("a")).toEqual(rec("a", 2));
    expect(store.latest.get(odd[0]!)).toEqual(rec(odd[0]!, 1, "line\nbreak"));
    expect(store.lineCount).toBe(6);
    expect(log.warns).toEqual([]);
    await store.append([rec("b", 2)]);
    expect(store.latest.get("b")?.version).toBe(2);
    await store.close();
  });

  it("writes one plain JSON line per record, draft_id first and crc last", async () => {
    const path = await storeWith([{ text: "t", version: 1, draft_id: "x" } as TestRecord]);
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines).toHaveLength(2);
    const obj = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(obj)).toEqual(["draft_id", "text", "version", "crc"]);
  });

  it("keeps the order of concurrent appends and batches them", async () => {
    const path = join(await tempDir(), "drafts.jsonl");
    const { store } = await openAt(path);
    const appends = Array.from({ length: 300 }, (_, i) => store.append([rec(`d${i % 7}`, i)]));
    await Promise.all(appends);
    const versions = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as TestRecord).version);
    expect(versions).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(store.latest.get("d0")?.version).toBe(294);
    await store.close();
  });

  it("rejects a record it cannot store without touching the others", async () => {
    const path = join(await tempDir(), "drafts.jsonl");
    const { store } = await openAt(path);
    const bad = { ...rec("a", 1), crc: "x" } as TestRecord;
    await expect(store.append([bad])).rejects.toThrow(/crc/);
    await store.append([rec("a", 1)]);
    expect(store.lineCount).toBe(1);
    await store.close();
    await expect(store.append([rec("a", 2)])).rejects.toThrow(/closed/);
  });
});

describe("JsonlStore: recovery", () => {
  const records = [rec("a", 1), rec("b", 1, "ümlaut ✓"), rec("a", 2, "last one")];

  it("cuts a torn last line at every byte offset and keeps the lines before it", async () => {
    const path = await storeWith(records);
    const full = await readFile(path);
    const lastStart = full.lastIndexOf(10, full.length - 2) + 1;
    for (let cut = lastStart + 1; cut < full.length; cut++) {
      await writeFile(path, full.subarray(0, cut));
      const { store, log } = await openAt(path);
      expect(store.latest.get("a"), `cut at ${cut}`).toEqual(rec("a", 1));
      expect(store.latest.get("b")).toEqual(records[1]);
      expect(store.lineCount).toBe(2);
      expect(log.warns).toHaveLength(1);
      expect(log.warns[0]!.obj.droppedBytes).toBe(cut - lastStart);
      expect((await stat(path)).size).toBe(lastStart);
      await store.close();
    }
  });

  it("cuts zeros or garbage appended after the last good line", async () => {
    const tails = [
      Buffer.alloc(4096),
      Buffer.from("\0\0\n\0\0\n"),
      Buffer.from("garbage\nmore garbage\n"),
      Buffer.from("\n\n"),
      Buffer.from('{"draft_id":"z"}\n'),
    ];
    for (const tail of tails) {
      const path = await storeWith(records);
      const good = (await stat(path)).size;
      await appendFile(path, tail);
      const { store, log } = await openAt(path);
      expect(store.latest.get("a")).toEqual(records[2]);
      expect(log.warns[0]?.obj.droppedBytes).toBe(tail.length);
      expect((await stat(path)).size).toBe(good);
      await store.append([rec("c", 1)]);
      await store.close();
      expect((await openAt(path)).store.latest.get("c")).toEqual(rec("c", 1));
    }
  });

  it("cuts a damaged last line (flipped bit)", async () => {
    const path = await storeWith(records);
    const buf = await readFile(path);
    buf[buf.length - 20]! ^= 0x04;
    await writeFile(path, buf);
    const { store, log } = await openAt(path);
    expect(store.latest.get("a")).toEqual(rec("a", 1));
    expect(log.warns[0]?.obj.reason).toMatch(/line 3: checksum mismatch/);
  });

  it("refuses a flipped bit in a middle line, names the line and changes nothing", async () => {
    const path = await storeWith(records);
    const original = await readFile(path);
    const start = original.indexOf(10) + 1;
    const end = original.indexOf(10, start);
    for (let i = start; i < end; i++) {
      const buf = Buffer.from(original);
      buf[i]! ^= 1 << (i % 7);
      await writeFile(path, buf);
      const err = await openAt(path).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `byte ${i}`).toBeInstanceOf(StoreCorruptError);
      expect(err).toMatchObject({ name: "StoreCorruptError", line: 2, path });
      expect((err as Error).message).toMatch(/move .* aside/);
      expect(await readFile(path)).toEqual(buf);
    }
  });

  it("refuses, rather than cuts, a tail of whole records without checksums", async () => {
    const path = await storeWith(records);
    const plain = '{"draft_id":"p","version":1,"text":""}\n';
    await appendFile(path, plain + plain + plain);
    const before = await readFile(path);
    await expect(openAt(path)).rejects.toMatchObject({
      name: "StoreCorruptError",
      line: 4,
      message: expect.stringMatching(/another program or version/),
    });
    expect(await readFile(path)).toEqual(before);
  });

  it("refuses an intact line that no longer validates", async () => {
    const path = join(await tempDir(), "drafts.jsonl");
    await writeFile(path, encodeLine({ draft_id: "a", version: "one", text: "" }) + encodeLine(rec("b", 1)));
    await expect(openAt(path)).rejects.toMatchObject({ line: 1, message: expect.stringMatching(/does not validate/) });
  });
});

describe("JsonlStore: compaction", () => {
  it("rewrites one line per draft, latest version, first-seen order", async () => {
    const path = join(await tempDir(), "drafts.jsonl");
    const { store } = await openAt(path);
    for (let v = 1; v <= 5; v++) await store.append([rec("x", v), rec("y", v), rec(`only${v}`, 1)]);
    const before = new Map(store.latest);
    await store.compact();
    expect(store.lineCount).toBe(7);
    expect([...store.latest]).toEqual([...before]);
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as TestRecord).draft_id)).toEqual(["x", "y", "only1", "only2", "only3", "only4", "only5"]);
    await store.append([rec("x", 6)]);
    await store.close();
    const again = (await openAt(path)).store;
    expect(again.lineCount).toBe(8);
    expect(again.latest.get("x")).toEqual(rec("x", 6));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("compacts by itself past the threshold, serialized with appends", async () => {
    const path = join(await tempDir(), "drafts.jsonl");
    const { store, log } = await openAt(path, memoryLog(), 20);
    const all = [];
    for (let i = 0; i < 200; i++) all.push(store.append([rec(`d${i % 4}`, i)]));
    await Promise.all(all);
    await store.close();
    expect(log.infos.some((l) => l.msg.startsWith("compacted"))).toBe(true);
    const again = (await openAt(path)).store;
    expect(again.lineCount).toBeLessThanOrEqual(21);
    expect([...again.latest.values()].map((r) => r.version)).toEqual([196, 197, 198, 199]);
  });

  it("ignores and removes the temp file of an interrupted compaction", async () => {
    const path = await storeWith([rec("a", 1), rec("a", 2)]);
    await writeFile(`${path}.compact.tmp`, encodeLine(rec("a", 1)).slice(0, 10));
    const { store, log } = await openAt(path);
    expect(store.latest.get("a")).toEqual(rec("a", 2));
    expect(log.infos[0]?.msg).toMatch(/interrupted compaction/);
    await expect(stat(`${path}.compact.tmp`)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
