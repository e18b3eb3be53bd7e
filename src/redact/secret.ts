import type { Detector, PiiSpan } from "./kinds.js";
import { botTokenStandsAlone, SECRET_SHAPES, TELEGRAM_BOT_TOKEN } from "./secret-shapes.js";

/**
 * Secrets: credentials of well-known shapes (see `secret-shapes.ts`) and
 * credentials recognisable by where they sit. For the latter only the value
 * is removed, so the draft still reads sensibly: `Bearer [secret]`,
 * `postgres://app:[secret]@db.example.com`, `?token=[secret]`,
 * `DATABASE_PASSWORD=[secret]`. A URL with no password, or a placeholder like
 * `Bearer <token>` or `TOKEN=${TOKEN}`, is left alone.
 */

/** A credential found by its surroundings; the value is the pattern's first capture group. */
interface ContextRule {
  readonly pattern: RegExp;
  /** Shorter values are placeholders or prose ("Bearer token", "?pwd=x"), not credentials. */
  readonly minLength: number;
  /** Drop sentence punctuation after the value; false where the delimiter is part of the pattern. */
  readonly trim: boolean;
}

const IN_CONTEXT: readonly ContextRule[] = [
  // user:password@ in a URL. The last @ before the path ends the password (a pasted password may
  // hold a raw @), so any length counts.
  // An empty user name counts too: `redis://:password@host`.
  { pattern: /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/?#@]{0,256}:([^\s/?#]{1,256})@/dgi, minLength: 1, trim: false },
  // credentials in a query string
  {
    pattern:
      /[?&](?:password|passwd|pwd|pass|secret|client_secret|token|access_token|refresh_token|id_token|api_key|apikey|api-key|key|auth|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token)=([^&#\s]+)/dgi,
    minLength: 8,
    trim: true,
  },
  // Authorization: Bearer / Basic (a token has a digit somewhere; prose after "Bearer" does not)
  { pattern: /\bBearer\s+((?=[A-Za-z0-9\-._~+/]{0,512}\d)[A-Za-z0-9\-._~+/]{16,4096}=*)/dg, minLength: 16, trim: true },
  { pattern: /\bAuthorization:\s*Basic\s+([A-Za-z0-9+/]{12,}={0,2})/dgi, minLength: 12, trim: false },
  // AWS secret access key: 40 base64 characters, recognisable only by what is said before it
  {
    pattern: /\baws[ _-]?secret(?:[ _-]?access)?(?:[ _-]?key)?\W{0,5}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi,
    minLength: 40,
    trim: false,
  },
  // ...or written right after its access key id: "access key AKIA…, secret wJalr…" (40 base64 characters within 80 of the id)
  {
    pattern:
      /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b[^\n]{0,80}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dg,
    minLength: 40,
    trim: false,
  },
  // ...or after the word "secret" ("secret key: wJalr…", "secret=wJalr…"): 40 base64 characters with a digit
  {
    pattern: /\bsecret(?:[ _-]?(?:access[ _-]?)?key)?\W{0,5}((?=[A-Za-z0-9/+]{0,39}\d)[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi,
    minLength: 40,
    trim: false,
  },
  // NAME_PASSWORD=value, API_KEY: value (environment files, config snippets); values with a digit only
  {
    pattern:
      /\b[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\s*[=:]\s*["']?((?=[^\s"'<>$`{}]{0,256}\d)[^\s"'<>$`{}]{1,256})/dg,
    minLength: 8,
    trim: true,
  },
];

/** Punctuation that ends a sentence rather than a secret: `?token=abc123def.` */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/** Finds secrets. */
export const findSecrets: Detector = (text) => {
  const spans: PiiSpan[] = [];
  for (const shape of SECRET_SHAPES) {
    for (const m of text.matchAll(shape)) spans.push({ kind: "secret", start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(TELEGRAM_BOT_TOKEN)) {
    if (botTokenStandsAlone(text, m.index)) spans.push({ kind: "secret", start: m.index, end: m.index + m[0].length });
  }
  for (const rule of IN_CONTEXT) {
    for (const m of text.matchAll(rule.pattern)) {
      const at = m.indices?.[1];
      if (at === undefined) continue;
      const raw = text.slice(at[0], at[1]);
      const value = rule.trim ? raw.replace(TRAILING, "") : raw;
      if (value.length >= rule.minLength) spans.push({ kind: "secret", start: at[0], end: at[0] + value.length });
    }
  }
  return spans;
};
