import { describe, expect, it } from "vitest";
import type { MessageEntity } from "grammy/types";
import { tappableCommands } from "../telegram-double/entities.js";
import type { SentMessage } from "../telegram-double/index.js";
import { eventually, type DaemonProcess } from "../support/daemon-process.js";
import { FRIEND, GROUP, OWNER, payload, useLiveDaemon } from "../support/live-fixture.js";

const live = useLiveDaemon();

/** The daemon with the review chat's pace sped up 20 times (the double enforces nothing here). */
const fastDaemon = () => live.start({ TELEGRAM_RATE_SCALE: "20" });

async function submit(d: DaemonProcess, text: string, extra: Record<string, unknown> = {}) {
  const res = await d.request("POST", "/drafts", payload(text, extra));
  expect(res.status).toBe(201);
  return res.body as { draft_id: string; review_message_id: number | null; status: string; warnings?: string[] };
}

async function posted(d: DaemonProcess, id: string): Promise<number> {
  return eventually(async () => {
    const rec = (await d.request("GET", `/drafts/${id}`)).body;
    return rec.status === "pending" ? (rec.review_message_id as number) : null;
  });
}

function quoted(m: SentMessage): string {
  const q = (m.entities ?? []).find((e: MessageEntity) => e.type === "blockquote");
  if (!q) throw new Error(`no blockquote in message ${m.messageId}`);
  return m.text.slice(q.offset, q.offset + q.length);
}

function sendButton(m: SentMessage): string {
  return (m.replyMarkup as { inline_keyboard: Array<Array<{ text: string }>> }).inline_keyboard[0]![0]!.text;
}

/** The header our daemon writes, as a draft would copy it to pass itself off for another destination. */
const forgedHeader = `✏️ DRAFT (Scribe) — for 👤 Friend · private chat\nExpires tomorrow 10:00, in 24 h, unless decided.\n`;

describe("the review post against the Bot API double", () => {
  it("a long draft starting with a forged header: the buttons' message names the real destination, the draft sits in a quote, its padding is counted", async () => {
    await fastDaemon();
    const text = forgedHeader + "\u200b".repeat(3850) + "Send the invoice to the whole group.";
    const a = await submit(live.daemon, text);
    const id = await posted(live.daemon, a.draft_id);
    const msgs = live.double.messages(OWNER);
    const draftMsg = msgs.find((m) => m.messageId === id)!;
    const header = msgs.find((m) => m.messageId === draftMsg.replyToMessageId)!;
    expect(header, "the draft message replies to its header").toBeDefined();
    expect(header.text.startsWith("✏️ DRAFT (Scribe) — for 👥 “Destination” · supergroup")).toBe(true);
    expect(header.text).toContain("⚠️ Contains 3,850 invisible characters");
    expect(quoted(draftMsg)).toBe(text);
    expect(sendButton(draftMsg)).toBe("👍 Send to Destination");
    expect(draftMsg.parseMode).toBeUndefined();
  });

  it("two long drafts submitted at once: each header is directly followed by its own draft, as a reply", async () => {
    await fastDaemon();
    const long = (who: string) => `${who}: ` + "long text ".repeat(400);
    const [a, b] = await Promise.all([
      submit(live.daemon, long("A")),
      submit(live.daemon, long("B"), { destination_chat_id: String(FRIEND) }),
    ]);
    const ids = [await posted(live.daemon, a.draft_id), await posted(live.daemon, b.draft_id)];
    const msgs = live.double.messages(OWNER);
    // Each: its header, then its draft in two parts (the last, with the buttons, leaves room for the status).
    expect(msgs).toHaveLength(6);
    for (let i = 0; i < 6; i += 3) {
      const [header, first, draft] = [msgs[i]!, msgs[i + 1]!, msgs[i + 2]!];
      expect(first.replyToMessageId).toBe(header.messageId);
      expect(draft.replyToMessageId).toBe(header.messageId);
      expect(ids).toContain(draft.messageId);
      const [line, name] = first.text.startsWith("A:")
        ? ["for 👥 “Destination” · supergroup", "Destination"]
        : ["for 👤 Friend · private chat", "Friend"];
      expect(header.text).toContain(line);
      expect(sendButton(draft)).toBe(`👍 Send to ${name}`);
    }
  });

  it("shows /resume in a draft as code, never as a tappable command; sends the text unchanged", async () => {
    await fastDaemon();
    const text = "Tap /resume to continue, or /halt@draft_review_test_bot.";
    const a = await submit(live.daemon, text);
    const post = live.double.messages(OWNER).find((m) => m.messageId === a.review_message_id)!;
    expect(tappableCommands(post.text, post.entities)).toEqual([]);
    const codes = (post.entities ?? []).filter((e) => e.type === "code").map((e) => post.text.slice(e.offset, e.offset + e.length));
    expect(codes).toEqual(["/resume", "/halt@draft_review_test_bot"]);
    expect(quoted(post)).toBe(text);
    live.double.injectReaction({ chatId: OWNER, messageId: a.review_message_id!, userId: OWNER, newEmojis: ["👍"] });
    await eventually(() => live.double.messages(GROUP).length === 1, 10_000, "sent");
    const sent = live.double.messages(GROUP)[0]!;
    expect(sent.text).toBe(text);
    // The same text in plain form: Telegram (and the double's parser) makes both commands tappable.
    expect(tappableCommands(sent.text, sent.entities)).toEqual(["/resume", "/halt@draft_review_test_bot"]);
  });

  it("review post and send carry the same link preview (the draft's first link), and none without a link", async () => {
    await fastDaemon();
    const withLink = await submit(live.daemon, "Slides: https://example.com/deck?id=7. And www.other.org too.");
    const without = await submit(live.daemon, "No link here.");
    for (const a of [withLink, without]) {
      const id = await posted(live.daemon, a.draft_id);
      live.double.injectReaction({ chatId: OWNER, messageId: id, userId: OWNER, newEmojis: ["👍"] });
    }
    await eventually(() => live.double.messages(GROUP).length === 2, 10_000, "both sent");
    const review = (id: string) => live.double.messages(OWNER).find((m) => m.text.includes(id))!;
    const sent = (id: string) => live.double.messages(GROUP).find((m) => m.text.includes(id))!;
    expect(review("Slides").linkPreview).toEqual({
      url: "https://example.com/deck?id=7",
      prefer_small_media: true,
      show_above_text: false,
    });
    expect(sent("Slides").linkPreview).toEqual(review("Slides").linkPreview);
    expect(review("No link").linkPreview).toEqual({ is_disabled: true });
    expect(sent("No link").linkPreview).toEqual({ is_disabled: true });
  });
});

describe("times in REVIEW_TIMEZONE", () => {
  it("the review post says when the draft expires in the reviewer's zone, under a date_time entity the client shows relative to now", async () => {
    await live.start({ TELEGRAM_RATE_SCALE: "20", REVIEW_TIMEZONE: "Pacific/Kiritimati", DRAFT_TTL: "90m" });
    const a = await submit(live.daemon, "Time check");
    const rec = (await live.daemon.request("GET", `/drafts/${a.draft_id}`)).body;
    expect(rec.expires_at).toMatch(/Z$/);
    const hm = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Pacific/Kiritimati",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(new Date(rec.expires_at));
    const post = live.double.messages(OWNER).find((m) => m.messageId === a.review_message_id)!;
    // Absolute in REVIEW_TIMEZONE (what an older client shows, and stays true); a newer one renders "in 2 hours".
    expect(post.text).toMatch(new RegExp(`Expires \\w{3} \\d+ \\w{3} ${hm}, unless decided\\.`));
    expect(post.entities?.find((e) => e.type === "date_time")).toMatchObject({
      unix_time: Math.floor(Date.parse(rec.expires_at) / 1000),
      date_time_format: "r",
    });
  });
});
