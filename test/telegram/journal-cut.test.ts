import { describe, expect, it } from "vitest";
import { judgeJournalCut, readJournalCut } from "../../src/telegram/journal-cut.js";

const cutOf = (text: string, complete = true) => ({
  reason: "line 9: checksum mismatch",
  bytes: text.length,
  head: Buffer.from(text),
  complete,
});

describe("the update journal's cut end: was a decision lost?", () => {
  it("reads the update ids the journal no longer holds and the message ids, from damaged bytes", () => {
    const cut = readJournalCut(
      cutOf(
        '{"draft_id":"u41","update_id":41,"state":"handled"}\n{"draft_id":"u42","update_id":42,"state":"rec#ived","update":{"message_reaction":{"message_id":7}}}\n',
      ),
      (id) => id === 41,
      41,
    );
    expect(cut).toMatchObject({
      missingUpdateIds: [42],
      unreadable: false,
      messageIds: [7],
      damagedAfterWrite: true,
      lastKnownUpdateId: 41,
    });
  });

  it("an interrupted write loses nothing; a confirmed update is lost; one Telegram still has is not", () => {
    const known = () => false;
    expect(judgeJournalCut(readJournalCut(cutOf('{"update_id":42', false), known, 41), null).lost).toBe("no");
    const damaged = readJournalCut(cutOf('{"update_id":42,"x"}\n'), known, 41);
    expect(judgeJournalCut(damaged, null)).toEqual({ lost: "yes", updateIds: [42] });
    expect(judgeJournalCut(damaged, 43)).toEqual({ lost: "yes", updateIds: [42] });
    expect(judgeJournalCut(damaged, 42).lost).toBe("no");
  });

  it("unreadable: lost maybe, unless Telegram delivers again right after the journal's last update", () => {
    const garbled = readJournalCut(cutOf("#########\n"), () => false, 41);
    expect(judgeJournalCut(garbled, null)).toEqual({ lost: "maybe" });
    expect(judgeJournalCut(garbled, 50)).toEqual({ lost: "maybe" });
    expect(judgeJournalCut(garbled, 42).lost).toBe("no");
  });
});

describe("the note of the last poll in the cut", () => {
  it("holds no tap: a damaged note costs nothing", () => {
    const cut = readJournalCut(
      cutOf('{"draft_id":"polled","update_id":0,"state":"handled","polled_at":"2026-01-0#T00:00:00.000Z"}\n'),
      () => false,
      41,
    );
    expect(cut).toMatchObject({ missingUpdateIds: [], unreadable: false });
    expect(judgeJournalCut(cut, null).lost).toBe("no");
  });
});
