/**
 * The world the reliability tests run in: the owner's review chat, a stranger,
 * a few destination chats (one of which refuses the bot), the knobs
 * (RELIABILITY_ITERATIONS, RELIABILITY_SEED) and the one-line report format.
 */
import { startTelegramDouble, type TelegramDouble } from "../../telegram-double/index.js";

/** The owner: a private review chat whose user is the only reviewer. */
export const OWNER = 5_550_001;
/** Someone who is not a reviewer, forging decisions. */
export const STRANGER = 6_660_002;
/** Destination private chats (Telegram's limit for them is 1 message a second). */
export const FRIENDS = [7_770_101, 7_770_102, 7_770_103, 7_770_104, 7_770_105, 7_770_106];
/** Destination groups (20 messages a minute). */
export const GROUPS = [-1_001_000_000_001, -1_001_000_000_002, -1_001_000_000_003];
/** A destination that blocked the bot: every send is a 403. */
export const BLOCKED = 7_770_199;
/** Every chat drafts go to. */
export const DESTINATIONS = [...FRIENDS, ...GROUPS, BLOCKED];

/** RELIABILITY_ITERATIONS: multiplies the workload and the kill points (default 1, for CI). */
export function iterations(): number {
  const n = Number(process.env.RELIABILITY_ITERATIONS ?? "1");
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

/** RELIABILITY_SEED, or a fixed default so a CI run is repeatable. */
export function seed(): number {
  const n = Number(process.env.RELIABILITY_SEED ?? "20261130");
  return Number.isSafeInteger(n) ? n : 20261130;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same workload and kill order. */
export { prng } from "./hostile-kit.js";

/** Prints one `[reliability]` line: a name and its figures. */
export function report(name: string, figures: Record<string, unknown>): void {
  const parts = Object.entries(figures).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`);
  console.log(`[reliability] ${name}: ${parts.join(" ")}`);
}

/** A Bot API double that knows the owner, the stranger and every destination. */
export async function sweepDouble(): Promise<TelegramDouble> {
  return startTelegramDouble({
    chats: [
      { id: OWNER, type: "private", firstName: "Owner" },
      { id: STRANGER, type: "private", firstName: "Stranger" },
      ...FRIENDS.map((id) => ({ id, type: "private" as const })),
      ...GROUPS.map((id) => ({ id, type: "supergroup" as const })),
      { id: BLOCKED, type: "private", blocked: true },
    ],
    users: [
      { id: OWNER, firstName: "Owner", username: "owner" },
      { id: STRANGER, firstName: "Stranger", username: "stranger" },
    ],
  });
}

/** The environment every reliability daemon gets against `double`. */
export function daemonEnv(double: TelegramDouble, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: double.token,
    TELEGRAM_API_ROOT: double.url,
    REVIEW_CHAT_ID: String(OWNER),
    LOG_LEVEL: "info",
    // Review-chat pacing and retry backoffs 20x faster against the double (a scenario may set its own).
    TELEGRAM_RATE_SCALE: "20",
    ...extra,
  };
}

/** Milliseconds since `t0`, rounded, for reports. */
export function since(t0: number): number {
  return Date.now() - t0;
}
