import { createHash } from "node:crypto";
import { appendFile, readFile } from "node:fs/promises";
import { harnessPaths } from "../../../src/app/paths.js";
import { SECOND_REVIEWER, OWNER } from "./fake-telegram.js";

/** The daemon's `source` in swarm.jsonl. */
const SOURCE = "telegram-draft-for-review";

/**
 * What another writer of the shared audit log appends:
 * - `foreign`: a line of its own (another source);
 * - `torn`: a line of its own cut short (no newline: it crashed mid-write);
 * - `surface`: a line claiming our source that makes one of the bot's messages a decision control, copied from a real surface line;
 * - `approve`: a transition claiming our source that approves a draft awaiting a decision, with its whole record;
 * - `resume`: an owner_resume claiming our source (a halt ended);
 * - `connection`: the second reviewer's business connection claimed kept by our source.
 * Each claiming line continues the unkeyed sha256 chain (seq + 1, prev_hash the sha256 of our last line), as any reader of the log could.
 */
export type Forgery =
  | { readonly kind: "foreign" | "torn" | "resume" | "connection" }
  | { readonly kind: "surface"; readonly pick: number; readonly asks: string }
  | { readonly kind: "approve"; readonly pick: number };

type Line = Record<string, unknown>;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

async function ourLines(path: string): Promise<{ raw: string[]; parsed: Line[] }> {
  const raw: string[] = [];
  const parsed: Line[] = [];
  for (const line of (await readFile(path, "utf8").catch(() => "")).split("\n")) {
    try {
      const value = JSON.parse(line) as Line;
      if (value.source === SOURCE) {
        raw.push(line);
        parsed.push(value);
      }
    } catch {
      // Another writer's torn line, or the end.
    }
  }
  return { raw, parsed };
}

/** The entries a claiming forgery adds (without ts, source, seq, prev_hash), or none when the log has nothing to copy. */
function claims(f: Forgery, lines: Line[], o: { botMessages: readonly number[]; at: number }): Line[] {
  const pick = <T>(xs: readonly T[], n: number): T | undefined => xs[xs.length - 1 - (n % Math.max(1, xs.length))];
  switch (f.kind) {
    case "surface": {
      const real = lines.filter((l) => l.kind === "surface" && l.draft_id !== null);
      const from = pick(real, f.pick);
      const message = pick(o.botMessages, f.pick * 7 + 3);
      if (from === undefined || message === undefined) return [];
      const { ts: _t, seq: _s, prev_hash: _p, mac: _m, source: _src, ...shown } = from;
      return [{ ...shown, message_id: message, asks: f.asks, ...(f.asks === "ask" ? { note: "ok" } : {}) }];
    }
    case "approve": {
      const latest = new Map<string, Line>();
      for (const l of lines) if (l.kind === "transition" && l.record !== undefined) latest.set(String(l.draft_id), l);
      const waiting = [...latest.values()].filter((l) => l.to === "pending" || l.to === "deferred");
      const t = pick(waiting, f.pick);
      if (t === undefined) return [];
      const at = new Date(o.at).toISOString();
      const record = t.record as Line;
      const actor = { user_id: OWNER, channel: "reaction", emoji: "👍", update_id: 1 };
      const version = Number(t.version) + 1;
      const { ts: _t, seq: _s, prev_hash: _p, mac: _m, source: _src, ...rest } = t;
      return [
        {
          ...rest,
          version,
          from: t.to,
          to: "approved",
          event: "decide",
          decision: "send",
          ...actor,
          reason: null,
          send_after: at,
          record: {
            ...record,
            version,
            status: "approved",
            updated_at: at,
            send_after: at,
            approval: { actor, at, text_sha256: record.text_sha256, text_version: record.text_version ?? 1, before: t.to },
          },
        },
      ];
    }
    case "resume":
      return [{ kind: "owner_resume", user_id: OWNER, channel: "command", changed: true }];
    case "connection":
      return [
        {
          kind: "business_connection",
          connection_id: `bc-${SECOND_REVIEWER}-1`,
          user_id: OWNER,
          enabled: true,
          can_reply: true,
          outcome: "kept",
          reason: "connected",
          update_id: null,
        },
      ];
    default:
      return [];
  }
}

/** Appends `forgery` to HARNESS_DIR's swarm.jsonl, as another process may at any time (the daemon up or down). */
export async function forgeAuditLines(dir: string, forgery: Forgery, o: { botMessages: readonly number[]; at: number }): Promise<void> {
  const path = harnessPaths(dir).audit;
  const ts = new Date(o.at).toISOString();
  if (forgery.kind === "foreign") return appendFile(path, `${JSON.stringify({ ts, source: "scribe", kind: "note", text: "hello" })}\n`);
  if (forgery.kind === "torn") return appendFile(path, `{"ts":"${ts}","source":"scribe","kind":"no`);
  const { raw, parsed } = await ourLines(path);
  let last = raw.at(-1);
  let seq = Number(parsed.at(-1)?.seq ?? 0);
  let text = "";
  for (const entry of claims(forgery, parsed, o)) {
    const line = JSON.stringify({ ts, source: SOURCE, seq: ++seq, prev_hash: last === undefined ? "0".repeat(64) : sha(last), ...entry });
    text += `${line}\n`;
    last = line;
  }
  if (text !== "") await appendFile(path, text);
}
