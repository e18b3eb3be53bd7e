/**
 * Credentials recognisable by their shape alone: vendors put a fixed prefix
 * on their keys precisely so that scanners can find them. Each entry matches
 * the whole credential. Keep entries specific: a generic "long random
 * string" rule would eat commit hashes, UUIDs and document ids.
 */
export const SECRET_SHAPES: readonly RegExp[] = [
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{36,251}\b/g, // GitHub token
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, // GitHub fine-grained token
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab token
  /\bxox[abposre]-\d[A-Za-z0-9-]{9,}/g, // Slack token
  /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]+/g, // Slack webhook
  /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[\w-]+/g, // Discord webhook
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, // Stripe secret / restricted key
  /\bwhsec_[A-Za-z0-9+/=]{24,}/g, // Stripe webhook secret
  /\bsk-(?=[A-Za-z0-9_-]{0,256}\d)[A-Za-z0-9_-]{20,256}/g, // OpenAI, Anthropic (sk-ant-...), DeepSeek...
  /\bAIza[0-9A-Za-z_-]{35}(?![\w-])/g, // Google API key
  /\bSG\.[\w-]{22}\.[\w-]{43}(?![\w-])/g, // SendGrid
  /\bnpm_[A-Za-z0-9]{36}\b/g, // npm
  /\bpypi-[A-Za-z0-9_-]{50,}/g, // PyPI
  /\bhf_[A-Za-z0-9]{30,}\b/g, // Hugging Face
  /\bSK[0-9a-fA-F]{32}\b/g, // Twilio API key
  /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g, // Shopify
  /\bdo[opr]_v1_[a-f0-9]{64}\b/g, // DigitalOcean
  /\bkey-[0-9a-f]{32}\b/g, // Mailgun
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWT
  /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY(?: BLOCK)?-----|$)/g, // PEM / PGP private key; an unterminated paste runs to the end
];

/**
 * Telegram bot token: the bot's numeric id, a colon and 35 characters. Also
 * inside Bot API URLs (`/bot<token>/getMe`). Checked in code rather than with
 * a leading lookbehind, which would make the regex test every position.
 */
export const TELEGRAM_BOT_TOKEN = /\d{8,10}:[A-Za-z0-9_-]{35}(?![\w-])/g;

/** Whether a bot-token candidate at `start` stands alone: not glued to a word, or right after `/bot`. */
export function botTokenStandsAlone(text: string, start: number): boolean {
  return !/[\w:-]/.test(text[start - 1] ?? "") || text.endsWith("/bot", start);
}
