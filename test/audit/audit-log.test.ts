import { createHash } from "node:crypto";
import { appendFile, open, readFile, stat, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuditLog, verifyAuditChain } from "../../src/audit/audit-log.js";
import { memoryLog, tempDir } from "../store/helpers.js";
import { noticeEntry, noticeText, readOurs, transitionLine } from "./entries.js";

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

async function openAudit(path: string, log = memoryLog()) {
  let t = Date.UTC(2025, 0, 1);
  const audit = await AuditLog.open({ path, log, now: () => (t += 1000) });
  opened.push(audit);
  return { audit, log };
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const lines = async (path: string) => (await readFile(path, "utf8")).split("\n").filter((l) => l !== "");

describe("AuditLog", () => {
  it("writes chained lines and reads them back across restarts", async () => {
    const path = join(await tempDir(), "h", "swarm.jsonl");
    const { audit } = await openAudit(path);
    await audit.append([transitionLine("d1", { to: "pending", draft_text: "hello" })]);
    await audit.append([noticeEntry("refused", "d1")]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const [l1, l2] = await lines(path);
    const o1 = JSON.parse(l1!) as Record<string, unknown>;
    expect(Object.keys(o1).slice(0, 5)).toEqual(["ts", "source", "seq", "prev_hash", "kind"]);
    expect(o1).toMatchObject({
      // The first tick of the clock is the open's (when the log was started).
      ts: "2025-01-01T00:00:02.000Z",
      source: "telegram-draft-for-review",
      seq: 1,
      prev_hash: "",
      draft_text: "hello",
    });
    expect(JSON.parse(l2!)).toMatchObject({ seq: 2, prev_hash: sha(l1!) });
    expect((await readOurs(path)).map((l) => [l.seq, l.entry?.kind])).toEqual([
      [1, "transition"],
      [2, "notice"],
    ]);
    await audit.close();

    const { audit: again } = await openAudit(path);
    expect(again.lastSeq).toBe(2);
    expect(again.index.audited("d1")).toEqual({ version: 1, to: "pending" });
    await again.append([transitionLine("d1", { to: "sent", version: 2 })]);
    expect(JSON.parse((await lines(path))[2]!)).toMatchObject({ seq: 3, prev_hash: sha(l2!) });
    expect(await verifyAuditChain(path)).toEqual({ ok: true, lines: 3 });
  });

  it("group-commits concurrent appends in call order", async () => {
    const path = join(await tempDir(), "swarm.jsonl");
    const { audit } = await openAudit(path);
    await Promise.all(Array.from({ length: 100 }, (_, i) => audit.append([noticeEntry(String(i))])));
    expect((await lines(path)).map((l) => Number((JSON.parse(l) as { text: string }).text))).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    expect(audit.lastSeq).toBe(100);
    expect(await verifyAuditChain(path)).toEqual({ ok: true, lines: 100 });
  });

  it("tolerates other writers' lines, garbage and a torn line in between", async () => {
    const path = join(await tempDir(), "swarm.jsonl");
    const { audit } = await openAudit(path);
    await audit.append([noticeEntry("a")]);
    await appendFile(path, '{"ts":"x","source":"scribe","kind":"note"}\nnot json at all\n');
    await audit.append([noticeEntry("b")]);
    await appendFile(path, '{"source":"cos","seq":1,"prev_hash":"","ts":"t","kind":"x"}\n{"ts":"2025","source":"telegram-draft-');
    await audit.close();

    const { audit: again, log } = await openAudit(path);
    expect(again.lastSeq).toBe(2);
    expect((await readOurs(path)).map((l) => noticeText(l.entry))).toEqual(["a", "b"]);
    expect(log.warns.some((w) => /incomplete line/.test(w.msg))).toBe(true);
    await again.append([noticeEntry("c")]);
    const all = await lines(path);
    expect(all.at(-2)).toBe('{"ts":"2025","source":"telegram-draft-');
    expect(JSON.parse(all.at(-1)!)).toMatchObject({ text: "c", seq: 3 });
    expect(await verifyAuditChain(path)).toEqual({ ok: true, lines: 3 });
    expect(await verifyAuditChain(path, "cos")).toEqual({ ok: true, lines: 1 });
  });

  it("continues the chain from the last good line after a torn line of ours", async () => {
    const path = join(await tempDir(), "swarm.jsonl");
    const { audit } = await openAudit(path);
    await audit.append([noticeEntry("a"), noticeEntry("b")]);
    await audit.close();
    const content = await readFile(path, "utf8");
    await writeFile(path, content.slice(0, content.length - 9)); // tear our last line
    await appendFile(path, "\n");
    const { audit: again, log } = await openAudit(path);
    expect(again.lastSeq).toBe(1);
    expect(log.warns[0]?.msg).toMatch(/do not parse/);
    await again.append([noticeEntry("c")]);
    expect(await verifyAuditChain(path)).toEqual({ ok: true, lines: 2 });
  });

  it("refuses entries that would overwrite the chain fields", async () => {
    const { audit } = await openAudit(join(await tempDir(), "swarm.jsonl"));
    await expect(audit.append([{ ...noticeEntry("x"), seq: 9 } as never])).rejects.toThrow(/seq/);
    await expect(audit.append([{ kind: "" } as never])).rejects.toThrow(/audit schema/);
    await expect(audit.append([{ ...noticeEntry("x"), status: "nope" } as never])).rejects.toThrow(/audit schema/);
    expect(audit.lastSeq).toBe(0);
  });
});

describe("AuditLog: failed writes", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("rejects the batch, then re-reads the file and starts on a fresh line", async () => {
    const dir = await tempDir();
    const path = join(dir, "swarm.jsonl");
    const { audit, log } = await openAudit(path);
    await audit.append([noticeEntry("a")]);
    const probe = await open(join(dir, "probe"), "w");
    await probe.close();
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    type RawWrite = (this: FileHandle, data: Uint8Array, off?: number, len?: number) => Promise<unknown>;
    const realWrite = proto.write as unknown as RawWrite;
    const torn: RawWrite = async function (data, off = 0, len = data.length - off) {
      await realWrite.call(this, data, off, Math.floor(len / 2));
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    };
    vi.spyOn(proto, "write").mockImplementationOnce(torn as unknown as typeof proto.write);
    await expect(audit.append([noticeEntry("b")])).rejects.toThrow(/not acknowledged/);
    await audit.append([noticeEntry("c")]);
    expect(log.warns.some((w) => /re-read/.test(w.msg))).toBe(true);
    expect((await readOurs(path)).map((l) => [noticeText(l.entry), l.seq])).toEqual([
      ["a", 1],
      ["c", 2],
    ]);
    const all = await lines(path);
    expect(all).toHaveLength(3);
    expect(JSON.parse(all[2]!)).toMatchObject({ text: "c", seq: 2 });
    expect(await verifyAuditChain(path)).toEqual({ ok: true, lines: 2 });
  });
});

describe("verifyAuditChain", () => {
  async function chain(n: number) {
    const path = join(await tempDir(), "swarm.jsonl");
    const { audit } = await openAudit(path);
    for (let i = 0; i < n; i++) {
      await audit.append([transitionLine(`d${i}`, { draft_text: `text ${i}` })]);
      await appendFile(path, `{"source":"other","n":${i}}\n`);
    }
    await audit.close();
    return { path, all: await lines(path) };
  }

  it("detects an edited line at the line after it", async () => {
    const { path, all } = await chain(5);
    all[4] = all[4]!.replace("text 2", "text X"); // our 3rd line (file line 5)
    await writeFile(path, `${all.join("\n")}\n`);
    expect(await verifyAuditChain(path)).toMatchObject({ ok: false, line: 7, reason: expect.stringMatching(/edited or deleted/) });
  });

  it("detects a deleted line", async () => {
    const { path, all } = await chain(5);
    all.splice(2, 1); // our 2nd line
    await writeFile(path, `${all.join("\n")}\n`);
    expect(await verifyAuditChain(path)).toMatchObject({ ok: false, line: 4 });
  });

  it("detects deleted first lines and non-increasing seq", async () => {
    const { path, all } = await chain(3);
    await writeFile(path, `${all.slice(2).join("\n")}\n`);
    expect(await verifyAuditChain(path)).toMatchObject({ ok: false, line: 1, reason: expect.stringMatching(/first line/) });
    const forged = all.map((l) => l.replace('"seq":2', '"seq":1'));
    await writeFile(path, `${forged.join("\n")}\n`);
    expect(await verifyAuditChain(path)).toMatchObject({ ok: false, line: 3 });
  });

  it("does not count other sources or torn lines as breaks", async () => {
    const { path } = await chain(4);
    await appendFile(path, '{"ts":"2025-01-01","source":"telegram-draft-for-review","seq":5,"prev');
    expect(await verifyAuditChain(path)).toEqual({ ok: true, lines: 4 });
  });
});
