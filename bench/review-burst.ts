/**
 * 1b. A burst of review posts to a private review chat (issue 20, point 4):
 * 30 drafts from three roles posted through the real TelegramReviewChat (its
 * lanes, reviewChatLimits for a private chat) against the double enforcing
 * Telegram's limits, in real time. Measured from the first post's call to the
 * double's acceptance of the last; the burst's summary line goes first.
 */
import { Api } from "grammy";
import { systemClock } from "../src/clock/clock.js";
import { TelegramReviewChat } from "../src/telegram/review-chat.js";
import { reviewChatLimits } from "../src/telegram/review-lane.js";
import { draftIn } from "../test/support/drafts.js";
import { startTelegramDouble } from "../test/telegram-double/index.js";
import { fixed } from "./support.js";
import { judged, type Row } from "./table.js";

const OWNER = 5_550_001;
const ROLES = ["Scribe", "CoS", "Margot"] as const;

/** The row: 30 posts to a private review chat, in ≤ 40 s, 0 × 429, one summary. */
export async function reviewBurstRow(): Promise<Row> {
  const double = await startTelegramDouble({ chats: [{ id: OWNER, type: "private" }], rateLimits: true });
  const chatId = String(OWNER);
  const chat = new TelegramReviewChat({
    api: new Api(double.token, { apiRoot: double.url }),
    chatId,
    threadId: null,
    deferForMs: 86_400_000,
    clock: systemClock(),
    limits: reviewChatLimits(chatId),
    log: { warn() {} },
  });
  try {
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        chat.post(draftIn("queued", { draft_id: `d_${i}`, draft_text: `Burst draft ${i}`, drafted_by_role: ROLES[i % 3]! })),
      ),
    );
    const messages = double.messages(OWNER);
    const spanS = (messages.at(-1)!.at - started) / 1000;
    const summaries = messages.filter((m) => m.text.startsWith("📥")).length;
    const tooMany = double.tooManyRequestsCount;
    const figure = `${fixed(spanS, 1)} s for 30 posts + ${summaries} summary line, ${tooMany} x 429`;
    return judged("1", "review chat burst: 30 posts to a private review chat, 1x", figure, "≤ 40 s, 0 x 429", spanS <= 40 && tooMany === 0);
  } finally {
    await chat.stop();
    await double.stop();
  }
}
