import { describe, expect, it } from "vitest";
import { countInvisible } from "../../src/telegram/invisible.js";
import { botCommandRanges } from "../../src/drafts/draft-entities.js";
import { linkPreviewFor } from "../../src/telegram/link-preview.js";

describe("invisible characters", () => {
  it("counts zero-width, bidi controls, word joiners, soft hyphens, BOM, fillers and stray selectors", () => {
    expect(
      countInvisible(
        "a\u200bb\u200cc\u200dd\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2060\u00ad\ufeff\u3164\u2800",
      ),
    ).toBe(19);
    expect(countInvisible("plain text, ünïcödé, 日本語")).toBe(0);
    expect(countInvisible("x\ufe0f")).toBe(1);
  });

  it("does not count what belongs to an emoji", () => {
    expect(countInvisible("👨‍👩‍👧 ❤️ 🏳️‍🌈 1️⃣ 🏴󠁧󠁢󠁳󠁣󠁴󠁿")).toBe(0);
  });
});

describe("bot commands and link previews", () => {
  it("finds the commands Telegram would make tappable, not paths or words", () => {
    const text = "/start then a/b, /resume@x_bot. http://h/p and (/halt)";
    expect(botCommandRanges(text).map((r) => text.slice(r.offset, r.offset + r.length))).toEqual(["/start", "/resume@x_bot", "/halt"]);
  });

  it("previews the first link of the draft, or nothing", () => {
    expect(linkPreviewFor("see https://a.example/x).")).toEqual({
      url: "https://a.example/x",
      prefer_small_media: true,
      show_above_text: false,
    });
    expect(linkPreviewFor("www.b.example, then https://c.example").url).toBe("http://www.b.example");
    expect(linkPreviewFor("no links")).toEqual({ is_disabled: true });
  });
});
