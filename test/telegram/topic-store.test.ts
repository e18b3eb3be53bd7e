import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TopicStore } from "../../src/telegram/topic-store.js";

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topic-store-"));
  path = join(dir, "review_topics.json");
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("TopicStore", () => {
  it("keeps each role's topic and the notices told, durably (0600), and reads them back", async () => {
    const { store, damaged } = await TopicStore.open(path, "5550001");
    expect(damaged).toBeNull();
    expect(store.topicOf("Scribe")).toBeNull();
    await store.setTopic("Scribe", { thread_id: 4, name: "Scribe" });
    await store.told("off:private");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const again = (await TopicStore.open(path, "5550001")).store;
    expect(again.topicOf("Scribe")).toEqual({ thread_id: 4, name: "Scribe" });
    expect(again.roleOf(4)).toBe("Scribe");
    expect(again.roleOf(5)).toBeNull();
    expect(again.wasTold("off:private")).toBe(true);
    await again.untell("off:");
    await again.setTopic("Scribe", null);
    const third = (await TopicStore.open(path, "5550001")).store;
    expect([third.topicOf("Scribe"), third.wasTold("off:private")]).toEqual([null, false]);
  });

  it("remembers a deleted topic durably (its posts' messages go elsewhere), and reads a file from before that was kept", async () => {
    await writeFile(
      path,
      JSON.stringify({ version: 1, chat_id: "5550001", topics: { Scribe: { thread_id: 4, name: "Scribe" } }, told: [] }),
    );
    const { store, damaged } = await TopicStore.open(path, "5550001");
    expect([damaged, store.wasDeleted(4), store.deletedTopics()]).toEqual([null, false, []]);
    await store.lose("Scribe", 4);
    const again = (await TopicStore.open(path, "5550001")).store;
    expect([again.topicOf("Scribe"), again.roleOf(4), again.wasDeleted(4)]).toEqual([null, null, true]);
    expect(again.deletedTopics()).toEqual([{ thread_id: 4, role: "Scribe" }]);
  });

  it("another review chat's topics are not used", async () => {
    await (await TopicStore.open(path, "5550001")).store.setTopic("CoS", { thread_id: 9, name: "CoS" });
    const other = await TopicStore.open(path, "-1001234567890");
    expect([other.damaged, other.store.topicOf("CoS")]).toEqual([null, null]);
  });

  it("a damaged file is reported and read as empty, never thrown", async () => {
    for (const content of [
      "{ not json",
      JSON.stringify({ version: 1, chat_id: "1", topics: { Scribe: { thread_id: -3, name: "x" } }, told: [] }),
    ]) {
      await writeFile(path, content);
      const { store, damaged } = await TopicStore.open(path, "1");
      expect(damaged).not.toBeNull();
      expect(store.topicOf("Scribe")).toBeNull();
      await store.setTopic("Margot", { thread_id: 2, name: "Margot" });
      expect(JSON.parse(await readFile(path, "utf8")).topics).toEqual({ Margot: { thread_id: 2, name: "Margot" } });
    }
  });
});
