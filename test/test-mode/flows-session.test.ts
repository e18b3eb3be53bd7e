import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { freshDirs, removeFreshDirs } from "../support/daemon-process.js";
import { draft, testModeSession } from "../support/test-mode-process.js";

/** Each session runs in fresh dirs; they go once it has ended. */
afterEach(removeFreshDirs);

/** The default UNDO_WINDOW (10 s): "" leaves the variable unset for the daemon. */
const DEFAULT_WINDOW = { UNDO_WINDOW: "" };

const session = (dirs: { cwd: string; harnessDir: string }, input: unknown[], env: Record<string, string> = DEFAULT_WINDOW) =>
  testModeSession(dirs, input, env);

describe("test mode: edit, unreact, advance (contract v2)", () => {
  it('👍 answers approved; {"cmd":"advance"} ends the undo window and sends', async () => {
    const dirs = await freshDirs();
    const [a] = await session(dirs, [draft("send me later")]);
    const answers = await session(dirs, [
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" },
      { cmd: "get", draft_id: a!.draft_id },
      { cmd: "advance" },
      { cmd: "get", draft_id: a!.draft_id },
    ]);
    expect(answers[0]).toEqual({ draft_id: a!.draft_id, status: "approved" });
    expect(answers[1]).toMatchObject({ status: "approved", send_after: expect.any(String) });
    expect(answers[2]!.transitions.map((t: { to: string }) => t.to)).toEqual(["sending", "sent"]);
    expect(answers[3]).toMatchObject({ status: "sent" });
  });

  it("unreact 👍 within the window undoes; after it, it is refused as too late", async () => {
    const dirs = await freshDirs();
    const [a, b] = await session(dirs, [draft("undo me"), draft("too late")]);
    const answers = await session(dirs, [
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" },
      { cmd: "advance", by: "5s" },
      { cmd: "unreact", review_message_id: a!.review_message_id, emoji: "👍" },
      { cmd: "react", review_message_id: b!.review_message_id, emoji: "👍" },
      { cmd: "advance", by: "10s" },
      { cmd: "unreact", review_message_id: b!.review_message_id, emoji: "👍" },
      { cmd: "unreact", review_message_id: b!.review_message_id, emoji: "😴" },
    ]);
    expect(answers[2]).toMatchObject({ draft_id: a!.draft_id, status: "pending" });
    expect(answers[5]).toMatchObject({ draft_id: b!.draft_id, status: "sent", refused: "final_state" });
    expect(answers[6]).toHaveProperty("error");
    const audit = (await readFile(join(dirs.harnessDir, "swarm.jsonl"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(audit.find((l) => l.event === "undo")).toMatchObject({ draft_id: a!.draft_id, from: "approved", to: "pending" });
  });

  it("edit makes version 2 on a new review post; a decision on the old post is refused; the new one counts", async () => {
    const dirs = await freshDirs();
    const [a] = await session(dirs, [draft("Hi Anna, Thursday works.")]);
    const [edited, old, empty, approved, flushed, record] = await session(dirs, [
      { cmd: "edit", review_message_id: a!.review_message_id, text: "  Hi Anna, Friday works.  " },
      { cmd: "react", review_message_id: a!.review_message_id, emoji: "👍" },
      { cmd: "edit", review_message_id: a!.review_message_id + 1, text: "   " },
      { cmd: "reply", review_message_id: a!.review_message_id + 1, text: "👍" },
      { cmd: "advance" },
      { cmd: "get", draft_id: a!.draft_id },
    ]);
    expect(edited).toEqual({ draft_id: a!.draft_id, status: "pending", review_message_id: a!.review_message_id + 1, text_version: 2 });
    expect(old).toEqual({ draft_id: a!.draft_id, status: "pending", refused: "not_live_post" });
    expect(empty).toMatchObject({ refused: "edit_empty", text_version: 2 });
    expect(approved).toEqual({ draft_id: a!.draft_id, status: "approved" });
    expect(flushed!.transitions.at(-1)).toMatchObject({ to: "sent" });
    expect(record).toMatchObject({
      draft_text: "Hi Anna, Friday works.",
      original_text: "Hi Anna, Thursday works.",
      text_version: 2,
      status: "sent",
    });
  });

  it("a reply starting with ✏️ edits, a reply `undo` undoes", async () => {
    const dirs = await freshDirs();
    const [a] = await session(dirs, [draft("v1")]);
    const answers = await session(dirs, [
      { cmd: "reply", review_message_id: a!.review_message_id, text: "✏️ v2" },
      { cmd: "reply", review_message_id: a!.review_message_id + 1, text: "👍" },
      { cmd: "reply", review_message_id: a!.review_message_id + 1, text: "undo" },
    ]);
    expect(answers[0]).toMatchObject({ status: "pending", text_version: 2 });
    expect(answers[1]).toMatchObject({ status: "approved" });
    expect(answers[2]).toMatchObject({ status: "pending" });
  });

  it("a payload naming an unknown `revises` is refused naming the field; a known one marks the earlier draft", async () => {
    const dirs = await freshDirs();
    const [a] = await session(dirs, [draft("first")]);
    const [bad, b, earlier] = await session(dirs, [
      draft("x", { revises: "d_nope" }),
      draft("second", { revises: a!.draft_id }),
      { cmd: "get", draft_id: a!.draft_id },
    ]);
    expect(bad).toMatchObject({ field: "revises", error: expect.stringMatching(/^revises: /) });
    expect(b).toMatchObject({ status: "pending" });
    expect(earlier).toMatchObject({ status: "revise", reason: "superseded", revised_by: b!.draft_id });
  });
});
