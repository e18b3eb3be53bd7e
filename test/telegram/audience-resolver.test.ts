import { Api } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedClock } from "../../src/clock/simulated-clock.js";
import { AUDIENCE_TTL_MS, NO_ANSWER, TelegramAudienceResolver } from "../../src/telegram/audience-resolver.js";
import { startTelegramDouble, type TelegramDouble } from "../telegram-double/index.js";
import { T0 } from "../support/drafts.js";

const GROUP = -1_001_234_567_890;
const BAD_GATEWAY = { error_code: 502, description: "Bad Gateway" };

let double: TelegramDouble;
let clock: SimulatedClock;
let resolver: TelegramAudienceResolver;

beforeEach(async () => {
  double = await startTelegramDouble({ chats: [{ id: GROUP, type: "supergroup", title: "Team", memberCount: 5 }] });
  clock = new SimulatedClock(T0);
  const api = new Api(double.token, { apiRoot: double.url });
  resolver = new TelegramAudienceResolver({ api, botId: double.botInfo.id, clock });
});

afterEach(async () => {
  await double.stop();
});

describe("the audience a review post shows", () => {
  it("is at most a minute old: a cached count is used within 60 s, read again after", async () => {
    expect(AUDIENCE_TTL_MS).toBe(60_000);
    expect(await resolver.resolve(String(GROUP))).toMatchObject({ kind: "supergroup", member_count: 5 });
    double.addChat({ id: GROUP, type: "supergroup", memberCount: 5000 });
    await clock.advance(59_999);
    expect((await resolver.resolve(String(GROUP))).member_count).toBe(5);
    await clock.advance(1);
    expect((await resolver.resolve(String(GROUP))).member_count).toBe(5000);
  });

  it("says the audience is unknown when getChat gets no answer, and the count is missing when getChatMemberCount gets none; neither is cached", async () => {
    double.failNext("getChat", BAD_GATEWAY);
    expect(await resolver.resolve(String(GROUP))).toMatchObject({ kind: "unknown", chat_id: String(GROUP), problem: NO_ANSWER });
    double.failNext("getChatMemberCount", BAD_GATEWAY);
    expect(await resolver.resolve(String(GROUP))).toMatchObject({ kind: "supergroup", member_count: null, problem: null });
    expect(await resolver.resolve(String(GROUP))).toMatchObject({ kind: "supergroup", member_count: 5 });
  });

  it("at the send call, no answer is null (not an audience), and an answer refreshes the cache", async () => {
    double.failNext("getChat", BAD_GATEWAY);
    expect(await resolver.fresh(String(GROUP))).toBeNull();
    double.addChat({ id: GROUP, type: "supergroup", memberCount: 7 });
    expect((await resolver.fresh(String(GROUP)))?.member_count).toBe(7);
    const calls = double.callCount("getChat");
    expect((await resolver.resolve(String(GROUP))).member_count).toBe(7);
    expect(double.callCount("getChat")).toBe(calls);
  });
});
