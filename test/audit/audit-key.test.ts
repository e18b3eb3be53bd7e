import { createHash } from "node:crypto";
import { appendFile, chmod, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataRefusalError } from "../../src/store/data-refusal.js";
import { AuditLog, verifyAuditChain } from "../../src/audit/audit-log.js";
import { readAuditKey } from "../../src/audit/audit-key.js";
import { CLI_AUDIT_SOURCE, DEFAULT_AUDIT_SOURCE } from "../../src/audit/sources.js";
import { verifyAudit } from "../../src/audit/verify-chain.js";
import { encodeLine } from "../../src/store/line-codec.js";
import { memoryLog, tempDir } from "../store/helpers.js";
import { noticeEntry, transitionLine } from "./entries.js";

const opened: AuditLog[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** The audit log of `dir`, opened as the daemon (or, `create` false, the CLI) opens it. */
async function open(dir: string, opts: { source?: string; create?: boolean; log?: ReturnType<typeof memoryLog>; secrets?: string[] } = {}) {
  const log = opts.log ?? memoryLog();
  const audit = await AuditLog.open({
    path: join(dir, "swarm.jsonl"),
    log,
    source: opts.source ?? DEFAULT_AUDIT_SOURCE,
    checkpointPath: opts.source === CLI_AUDIT_SOURCE ? undefined : join(dir, "audit_index.json"),
    key: { path: join(dir, "audit_key"), create: opts.create ?? true, onSecret: (s) => opts.secrets?.push(s) },
  });
  opened.push(audit);
  return { audit, log };
}

async function closeAll() {
  for (const a of opened.splice(0)) await a.close();
}

async function keyOf(dir: string) {
  const read = await readAuditKey(join(dir, "audit_key"));
  if (read.kind !== "key") throw new Error("no key");
  return read.key;
}

const lines = async (dir: string) => (await readFile(join(dir, "swarm.jsonl"), "utf8")).split("\n").filter((l) => l !== "");

/** A line claiming the daemon's source that continues the sha256 chain from its last line: what another writer can make. */
async function forge(dir: string, entry: Record<string, unknown>): Promise<string> {
  const ours = (await lines(dir)).filter((l) => JSON.parse(l).source === DEFAULT_AUDIT_SOURCE);
  const last = ours.at(-1);
  const line = JSON.stringify({
    ts: new Date().toISOString(),
    source: DEFAULT_AUDIT_SOURCE,
    seq: last ? JSON.parse(last).seq + 1 : 1,
    prev_hash: last ? sha(last) : "",
    ...entry,
  });
  await appendFile(join(dir, "swarm.jsonl"), `${line}\n`);
  return line;
}

describe("the audit key", () => {
  it("is made at the first start (0600, 64 hex digits), handed to the logger's secrets, and proves every line after the anchor", async () => {
    const dir = await tempDir();
    const secrets: string[] = [];
    const { audit, log } = await open(dir, { secrets });
    await audit.append([noticeEntry("first")]);
    const key = join(dir, "audit_key");
    expect((await stat(key)).mode & 0o777).toBe(0o600);
    const text = (await readFile(key, "utf8")).trim();
    expect(text).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets).toEqual([text]);
    expect(JSON.stringify(log)).not.toContain(text);
    const [anchor, first] = await lines(dir);
    expect(JSON.parse(anchor!)).toMatchObject({ seq: 1, prev_hash: "", kind: "key_anchor" });
    expect(first).toMatch(/,"mac":"[0-9a-f]{64}"\}$/);
    await closeAll();
    // A second start reads the same key.
    const again: string[] = [];
    await open(dir, { secrets: again });
    expect(again).toEqual([text]);
  });

  it("refuses a key others can read, a damaged one, and a missing one while the log holds lines proven with it", async () => {
    const dir = await tempDir();
    await (await open(dir)).audit.append([noticeEntry("x")]);
    await closeAll();
    const key = join(dir, "audit_key");
    const good = await readFile(key);
    for (const mode of [0o644, 0o640, 0o604]) {
      await chmod(key, mode);
      const err = await open(dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataRefusalError);
      expect((err as DataRefusalError).message).toContain(`${key}: it can be read by other users (mode 0${mode.toString(8)})`);
      expect((err as DataRefusalError).message).toContain(`chmod 600 ${key}`);
    }
    await writeFile(key, "not a key\n", { mode: 0o600 });
    await chmod(key, 0o600);
    await expect(open(dir)).rejects.toThrow(`${key}: it is damaged (it must hold 64 hexadecimal digits)`);
    await writeFile(key, "");
    const missing = (await open(dir).catch((e: unknown) => e)) as DataRefusalError;
    expect(missing).toBeInstanceOf(DataRefusalError);
    expect(missing.message).toMatch(/audit_key: it is missing, but .*swarm\.jsonl line 1 and others were proven with it/);
    expect(missing.message).toContain("Restore");
    // Nothing was made or changed: the operator decides.
    expect(await readFile(key, "utf8")).toBe("");
    await writeFile(key, good);
    await open(dir);
  });

  it("a line with a proof in the log of a HARNESS_DIR that never had a key never stops the first start: the key is made, the line is warned and decides nothing", async () => {
    const dir = await tempDir();
    // Another writer's line in our source's shape, ending in a `mac` (any 64 hex digits), before the daemon ever ran.
    const forged = JSON.stringify({
      ts: new Date().toISOString(),
      source: DEFAULT_AUDIT_SOURCE,
      seq: 1,
      prev_hash: "",
      kind: "owner_halt",
      user_id: null,
      channel: "cli",
      changed: true,
      mac: "ab".repeat(32),
    });
    await writeFile(join(dir, "swarm.jsonl"), `${forged}\n`);
    const { audit, log } = await open(dir);
    expect((await readAuditKey(join(dir, "audit_key"))).kind).toBe("key");
    // It decides nothing: no halt, not on our chain (the anchor vouches for no line before it).
    expect(audit.loggedHalt()).toBeNull();
    const anchor = JSON.parse((await lines(dir))[1]!);
    expect(anchor).toMatchObject({ kind: "key_anchor", seq: 1, prev_hash: "" });
    expect(anchor.chains[0]).toMatchObject({ seq: 0, hash: "" });
    const named = log.warns.find((w) => w.msg.includes("swarm.jsonl line 1 (byte 0) claims"));
    expect(named?.obj).toMatchObject({ line: 1, source: DEFAULT_AUDIT_SOURCE, reason: "its proof does not verify (forged, or edited)" });
    expect(log.warns.some((w) => w.msg.includes("nothing in HARNESS_DIR shows that an audit key existed here"))).toBe(true);
    await closeAll();
    // The next start (key and checkpoint there) reads it the same way.
    const { audit: again } = await open(dir);
    expect(again.loggedHalt()).toBeNull();
  });

  it("a missing key is judged by HARNESS_DIR, not by the log: refused while the checkpoint was written with it; made anew once nothing there shows one existed", async () => {
    const dir = await tempDir();
    await (await open(dir)).audit.append([noticeEntry("proven", "d_1")]);
    await closeAll();
    const key = join(dir, "audit_key");
    const checkpoint = join(dir, "audit_index.json");
    const old = await readFile(key, "utf8");
    await rm(key);
    const refused = (await open(dir).catch((e: unknown) => e)) as DataRefusalError;
    expect(refused).toBeInstanceOf(DataRefusalError);
    expect(refused.message).toMatch(
      /audit_key: it is missing, but .*swarm\.jsonl line 1 and others were proven with it \(.*audit_index\.json was written with it\)/,
    );
    await expect(stat(key)).rejects.toThrow();
    // The checkpoint gone too: nothing ours shows a key; the lines proven with the lost one are warned, and decide nothing.
    await rm(checkpoint);
    const { audit, log } = await open(dir);
    expect((await readFile(key, "utf8")).trim()).not.toBe(old.trim());
    expect(audit.index.wasNotified("d_1", "pending")).toBe(false);
    expect(log.warns.some((w) => w.obj.line === 1 && String(w.obj.reason).startsWith("its proof does not verify"))).toBe(true);
  });

  it("a log written before the key: our chain up to the anchor counts as ours; a line without proof after it never does", async () => {
    const dir = await tempDir();
    // As an older version wrote it: no key, no proofs (the daemon's lines and the CLI's halt and resume).
    const old = await AuditLog.open({ path: join(dir, "swarm.jsonl"), log: memoryLog() });
    await old.append([transitionLine("d_old", { to: "pending", version: 1 })]);
    await old.close();
    const cli = await AuditLog.open({ path: join(dir, "swarm.jsonl"), log: memoryLog(), source: CLI_AUDIT_SOURCE });
    await cli.append([{ kind: "owner_halt", user_id: null, channel: "cli", changed: true }]);
    await cli.close();
    await forge(dir, { kind: "notice", draft_id: "d_old", status: "pending", text: "pre-key, on our chain" });

    const { audit } = await open(dir);
    expect(audit.index.audited("d_old")).toEqual({ version: 1, to: "pending" });
    expect(audit.index.wasNotified("d_old", "pending")).toBe(true);
    expect(audit.loggedHalt()).not.toBeNull();
    const anchor = JSON.parse((await lines(dir)).at(-1)!);
    expect(anchor).toMatchObject({ kind: "key_anchor", seq: 3 });
    expect(anchor.chains).toEqual([
      { source: DEFAULT_AUDIT_SOURCE, seq: 2, hash: expect.any(String) },
      { source: CLI_AUDIT_SOURCE, seq: 1, hash: expect.any(String) },
    ]);
    await closeAll();

    // After the anchor: the same kind of line is another writer's.
    const forged = await forge(dir, { kind: "notice", draft_id: "d_new", status: "pending", text: "after the key" });
    const number = (await lines(dir)).indexOf(forged) + 1;
    const { audit: next, log } = await open(dir);
    expect(next.index.wasNotified("d_new", "pending")).toBe(false);
    const warning = log.warns.find((w) => w.msg.includes(`line ${number} (byte`));
    expect(warning?.msg).toContain("without valid proof (it has no proof, and it comes after the audit key was made)");
    expect(warning?.obj).toMatchObject({ line: number, source: DEFAULT_AUDIT_SOURCE });
    // Our next line continues from our last proven line, not from the forged one.
    await next.append([noticeEntry("ours again")]);
    const mine = JSON.parse((await lines(dir)).at(-1)!);
    expect(mine.seq).toBe(anchor.seq + 1);
    expect(mine.prev_hash).toBe(sha((await lines(dir)).find((l) => JSON.parse(l).kind === "key_anchor")!));
    const v = await verifyAudit(join(dir, "swarm.jsonl"), await keyOf(dir));
    expect(v.ok).toBe(false);
    expect(v.unproven.map((u) => u.line)).toEqual([number]);
    expect(v.sources.find((s) => s.source === DEFAULT_AUDIT_SOURCE)).toMatchObject({ lines: 4, preKey: 2, broken: null });
  });

  it("a checkpoint is used only with a valid proof: one written or edited by another program is not", async () => {
    const dir = await tempDir();
    const { audit } = await open(dir);
    await audit.append([noticeEntry("told", "d_1")]);
    await closeAll();
    const path = join(dir, "audit_index.json");
    const good = await readFile(path, "utf8");
    // The same content, re-checksummed, with a surface the log never had: the checksum holds, the proof does not.
    const value = JSON.parse(good.replace(/,"crc":"[0-9a-f]{8}"\}\n$/, "}"));
    value.surfaces.push({
      chat_id: "1",
      message_id: 42,
      asks: "decide",
      draft_id: "d_1",
      text_version: 1,
      audience: null,
      identity: "bot",
      used: false,
    });
    await writeFile(path, encodeLine(value));
    const { audit: again, log } = await open(dir);
    expect(again.opened.fromCheckpoint).toBe(false);
    expect(again.index.surfaces.byMessageId(42)).toBeUndefined();
    expect(log.warns.find((w) => w.msg.startsWith("the audit index checkpoint cannot be used"))?.obj.problem).toMatch(
      /its proof does not verify/,
    );
    await closeAll();
    // Without any proof (written before the key existed): read in full too.
    const { mac: _mac, ...unproven } = value;
    await writeFile(path, encodeLine(unproven));
    const { log: third } = await open(dir);
    expect(third.warns.find((w) => w.msg.startsWith("the audit index checkpoint cannot be used"))?.obj.problem).toMatch(/carries no proof/);
  });

  it("the CLI never makes the key; with it, its lines are proven and count for the daemon's halts", async () => {
    const dir = await tempDir();
    const { audit: cliBefore } = await open(dir, { source: CLI_AUDIT_SOURCE, create: false });
    await cliBefore.append([{ kind: "owner_halt", user_id: null, channel: "cli", changed: true }]);
    await closeAll();
    await expect(stat(join(dir, "audit_key"))).rejects.toThrow();
    await open(dir);
    await closeAll();
    const { audit: cli } = await open(dir, { source: CLI_AUDIT_SOURCE, create: false });
    await cli.append([{ kind: "owner_resume", user_id: null, channel: "cli", changed: true }]);
    await closeAll();
    expect((await lines(dir)).at(-1)).toMatch(/"source":"draft-review-cli".*,"mac":"[0-9a-f]{64}"\}$/);
    const { audit: daemon } = await open(dir);
    const halt = daemon.loggedHalt();
    expect(halt).not.toBeNull();
    expect(halt!.reason).toMatch(/an owner's halt recorded in the audit log/);
    expect(await verifyAuditChain(join(dir, "swarm.jsonl"), CLI_AUDIT_SOURCE)).toEqual({ ok: true, lines: 2 });
  });
});
