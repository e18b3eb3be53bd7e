import { createHmac, timingSafeEqual, type KeyObject } from "node:crypto";

/**
 * The proof our lines carry in the shared audit log: the last field of each
 * line written with the key is `"mac":"<64 hex>"`, an HMAC-SHA256 (key: the
 * audit key in HARNESS_DIR, see audit-key.ts) of the line without that
 * field. The line's `prev_hash` (the sha256 of our previous line, its mac
 * included) is inside what the mac covers, so each mac depends on the one
 * before it: a keyed chain (Schneier and Kelsey, "Secure Audit Logs to
 * Support Computer Forensics", 1999, without their evolving key). Each line
 * can still be checked on its own, so one damaged line never disowns the
 * genuine lines after it. The audit index checkpoint carries the same kind
 * of proof, under another domain, so neither can pass for the other.
 *
 * Anyone may read the log and append to it; only a holder of the key can
 * write a line that verifies.
 */

/** What a proof covers is prefixed with its domain, so a proof made for one use never verifies for another. */
const LINE_DOMAIN = Buffer.from("telegram-draft-for-review audit line v1\n");
const CHECKPOINT_DOMAIN = Buffer.from("telegram-draft-for-review audit index checkpoint v1\n");

/** `,"mac":"` + 64 hex digits + `"}`: the fixed-size tail of a proven line. */
export const MAC_SUFFIX_BYTES = 74;
const SUFFIX_HEAD = Buffer.from(',"mac":"');
const CLOSE = Buffer.from("}");

/** The key that makes and checks proofs (held as a KeyObject: printing it shows no bytes). */
export type AuditKey = KeyObject;

function mac(key: AuditKey, domain: Buffer, body: Uint8Array): Buffer {
  return createHmac("sha256", key).update(domain).update(body).update(CLOSE).digest();
}

/** `json` (one JSON object's text) with its proof as the last field. */
function sign(key: AuditKey, domain: Buffer, json: string): string {
  if (json.length < 2 || json[0] !== "{" || json[json.length - 1] !== "}") throw new TypeError("only a JSON object's text can be signed");
  const head = json.slice(0, -1);
  return `${head},"mac":"${mac(key, domain, Buffer.from(head)).toString("hex")}"}`;
}

/** The state of `buf[start, end)`'s proof: none there, there and valid, or there and wrong. */
export type ProofState = "none" | "valid" | "invalid";

function check(key: AuditKey | null, domain: Buffer, buf: Uint8Array, start: number, end: number): ProofState {
  const body = end - MAC_SUFFIX_BYTES;
  if (body - start < 2 || buf[end - 1] !== 0x7d || buf[end - 2] !== 0x22) return "none";
  for (let i = 0; i < SUFFIX_HEAD.length; i++) if (buf[body + i] !== SUFFIX_HEAD[i]) return "none";
  const at = body + SUFFIX_HEAD.length;
  const claimed = Buffer.from(Buffer.from(buf.subarray(at, at + 64)).toString("latin1"), "hex");
  if (key === null || claimed.length !== 32) return "invalid";
  return timingSafeEqual(claimed, mac(key, domain, buf.subarray(start, body))) ? "valid" : "invalid";
}

/** One audit line (`{...}`, no newline) with its proof. */
export function signLine(key: AuditKey, json: string): string {
  return sign(key, LINE_DOMAIN, json);
}

/** Whether the audit line `buf[start, end)` carries a proof, and whether it verifies (never without a key). */
export function lineProof(key: AuditKey | null, buf: Uint8Array, start: number, end: number): ProofState {
  return check(key, LINE_DOMAIN, buf, start, end);
}

/** The checkpoint's JSON with its proof. */
export function signCheckpoint(key: AuditKey, json: string): string {
  return sign(key, CHECKPOINT_DOMAIN, json);
}

/** Whether the checkpoint's JSON text carries a proof, and whether it verifies (never without a key). */
export function checkpointProof(key: AuditKey | null, json: Uint8Array): ProofState {
  return check(key, CHECKPOINT_DOMAIN, json, 0, json.length);
}
