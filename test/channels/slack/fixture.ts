/**
 * A workspace seeded in the Slack double, and the real channel pointed at it:
 * the owner (user token), the app (bot token), a few people and one
 * conversation of each kind the audience tells apart.
 */
import { createServer } from "node:net";
import type { Channel } from "../../../src/channels/channel.js";
import {
  createSlackChannel,
  type SlackChannelOptions,
  type SlackDestination,
  slackConfigFromEnv,
} from "../../../src/channels/slack/index.js";
import { type SlackDouble, startSlackDouble } from "../../doubles/slack/index.js";

export const OWNER = "U0OWNER001";
export const BOT = "U0BOTUSER1";
export const ANNA = "U0ANNA0001";
export const BOB = "U0BOB00001";
export const USER_TOKEN = "xoxp-1111111111-2222222222-3333333333-abcdefabcdefabcdef";
export const BOT_TOKEN = "xoxb-1111111111-4444444444-ABCDEFabcdefABCDEF";

/** Conversation ids by what they are. */
export const C = {
  design: "C0DESIGN01",
  general: "C0GENERAL1",
  secret: "G0SECRET01",
  dm: "D0ANNADM01",
  mpdm: "G0MPDM0001",
  archived: "C0ARCHIVE1",
  connect: "C0CONNECT1",
  gridShared: "C0GRIDSHR1",
  noBot: "C0NOBOT001",
  uncounted: "G0UNCOUNT1",
} as const;

/** `n` member ids besides the named people. */
function crowd(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `U0CROWD${String(i).padStart(3, "0")}`);
}

/** Starts the double and seeds the workspace "Acme". */
export async function startWorkspace(now?: () => number): Promise<SlackDouble> {
  const slack = await startSlackDouble(now === undefined ? {} : { now });
  slack.addToken({ userId: OWNER, userName: "phill" }, USER_TOKEN);
  slack.addToken({ userId: BOT, userName: "draftbot", botId: "B0DRAFTBOT" }, BOT_TOKEN);
  slack.addUser({ id: ANNA, name: "anna", real_name: "Anna Smith", display_name: "anna" });
  slack.addUser({ id: BOB, name: "bob", display_name: "Bobby" });
  const both = [OWNER, BOT];
  slack.addConversation({ id: C.design, name: "design", kind: "public", members: [...both, ANNA, ...crowd(11)] });
  slack.addConversation({ id: C.general, name: "general", kind: "public", members: [...both, ANNA, BOB, ...crowd(296)] });
  slack.addConversation({ id: C.secret, name: "secret-plans", kind: "private", members: [...both, ANNA] });
  slack.addConversation({ id: C.dm, kind: "im", members: [OWNER, ANNA] });
  slack.addConversation({ id: C.mpdm, name: "mpdm-phill--anna--bob-1", kind: "mpim", members: [OWNER, ANNA, BOB] });
  slack.addConversation({ id: C.archived, name: "old-launch", kind: "public", members: both, archived: true });
  slack.addConversation({ id: C.connect, name: "acme-partners", kind: "private", members: [...both, ANNA, BOB], extShared: true });
  slack.addConversation({ id: C.gridShared, name: "all-hands", kind: "public", members: [...both, ANNA], shared: true });
  slack.addConversation({ id: C.noBot, name: "random", kind: "public", members: [OWNER, ANNA] });
  slack.addConversation({ id: C.uncounted, name: "quiet", kind: "private", members: [...both, ANNA, BOB], hideMemberCount: true });
  return slack;
}

/** The real Slack channel against the double, with `token` (the owner's by default). */
export function channelFor(
  slack: SlackDouble,
  options: Partial<Omit<SlackChannelOptions, "config">> & { token?: string; url?: string } = {},
): Channel<SlackDestination> {
  const parsed = slackConfigFromEnv({ SLACK_TOKEN: options.token ?? USER_TOKEN, SLACK_API_URL: options.url ?? slack.url });
  if (parsed.kind !== "ok") throw new Error(`fixture config: ${parsed.kind}`);
  const { token: _, url: __, ...rest } = options;
  return createSlackChannel({
    now: () => Date.now(),
    confirmOver: 200,
    timeoutMs: 5_000,
    findSentSettleMs: 0,
    ...rest,
    config: parsed.config,
  });
}

/** A parsed destination. */
export function to(channel_id: string, thread_ts: string | null = null): SlackDestination {
  return { channel: "slack", channel_id, thread_ts };
}

/** A send reference as the send path makes one. */
export function ref(n: number, draftId = `d-${n}`): { draftId: string; delivery: number; reference: string } {
  return { draftId, delivery: 1, reference: `ref-${n}-0f3c2a` };
}

/** A port nothing listens on (bound, then closed): a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
