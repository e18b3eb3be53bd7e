import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IGNORED_MAX, IgnoredConnections, ignoredNotice } from "../../src/business/ignored-connections.js";

const quiet = { warn: () => {} };
let dir = "";
afterEach(() => rm(dir, { recursive: true, force: true }));

const bob = { id: "bc_bob", user_id: 2002, name: "Bob", username: "bob_r", enabled: true, seen_at: "2026-01-01T00:00:00.000Z" };

describe("IgnoredConnections: other accounts' business connections, told once", () => {
  it("remembers each connection durably with when it was told, bounded; an unreadable file is an empty one", async () => {
    dir = await mkdtemp(join(tmpdir(), "ignored-"));
    const path = join(dir, "business_ignored.json");
    const store = await IgnoredConnections.open(path, quiet);
    expect((await store.note(bob)).told_at).toBeNull();
    await store.told("bc_bob", "2026-01-01T00:00:01.000Z");
    // Telegram tells of it again (paused): still told, and no longer the account connected instead of the owner's.
    expect(await store.note({ ...bob, enabled: false })).toMatchObject({ told_at: "2026-01-01T00:00:01.000Z", enabled: false });
    expect(store.latestEnabled()).toBeNull();
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const again = await IgnoredConnections.open(path, quiet);
    expect(again.get("bc_bob")).toMatchObject({ told_at: "2026-01-01T00:00:01.000Z", enabled: false });
    for (let i = 0; i < IGNORED_MAX + 5; i++) await again.note({ ...bob, id: `bc_${i}`, user_id: 3000 + i });
    expect(again.get("bc_bob")).toBeUndefined();
    expect(again.latestEnabled()?.id).toBe(`bc_${IGNORED_MAX + 4}`);
    expect(again.enabledOf(3000 + IGNORED_MAX + 4)?.id).toBe(`bc_${IGNORED_MAX + 4}`);

    await writeFile(path, "{ torn");
    expect((await IgnoredConnections.open(path, quiet)).latestEnabled()).toBeNull();
  });

  it("the notice names the account and the owner; a reviewer's says how to make him the owner", () => {
    const c = { ...bob, told_at: null };
    expect(ignoredNotice(c, { name: "Owen", username: "owen", user_id: 1001 }, true)).toBe(
      "⚠️ Telegram Business: Bob (@bob_r, user 2002) connected this bot to their account. Ignored: drafts speak only as the owner " +
        "(Owen (@owen, user 1001); OWNER_USER_ID), and nothing is sent from Bob's account. To make Bob the owner instead, set " +
        "OWNER_USER_ID=2002 and restart.",
    );
    expect(ignoredNotice({ ...c, username: null }, { user_id: 1001 }, false)).toBe(
      "⚠️ Telegram Business: Bob (user 2002), who is not a reviewer, connected this bot to their account. Ignored: nothing is ever " +
        "sent from that account; drafts speak only as the owner (user 1001).",
    );
  });
});
