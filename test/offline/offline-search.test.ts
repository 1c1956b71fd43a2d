// Searching the chats kept on this device while offline (app/src/offline/offline-search.ts, docs/app.md "Offline"
// OF8): words folded and matched as word starts as the server does, every word required; results in the server's
// shape; a chat the cache drops (forgotten, evicted by the bound, wiped) leaves the index, and one written again is
// indexed again.
import { describe, expect, it } from "vitest";
import type { Message, SessionSummary } from "../../client/index.ts";
import { createLocalSearch } from "../../app/src/offline/offline-search.ts";
import { memoryCache } from "../../app/src/state/offline-cache.ts";

const said = (...texts: string[]): Message[] => texts.map((content) => ({ role: "user", content }));
const summary = (id: string, title: string, archived = false): SessionSummary => ({
  id,
  title,
  agent_id: "default",
  model: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  message_count: 1,
  ...(archived ? { archived: true } : {}),
});

describe("offline search", () => {
  it("matches folded word starts, every word, with the server's result shape", async () => {
    const cache = memoryCache();
    await cache.writeSessions([summary("a", "Paris trip"), summary("b", "Recipes", true)]);
    await cache.writeMessages("a", said("Where is the best Café near the Louvre?", "Book the train"));
    await cache.writeMessages("b", said("A cafe au lait recipe", "Crème brûlée, step by step"));
    const search = createLocalSearch(cache);
    const cafe = await search.search("CAFE");
    expect(cafe.map((result) => [result.session_id, result.message_index]).sort()).toEqual([
      ["a", 0],
      ["b", 0],
    ]);
    const [paris] = await search.search("café louv");
    expect(paris).toEqual({
      session_id: "a",
      title: "Paris trip",
      message_index: 0,
      snippet: "Where is the best Café near the Louvre?",
      highlights: [
        [18, 22],
        [32, 38],
      ],
    });
    expect(await search.search("creme bru")).toEqual([
      expect.objectContaining({ session_id: "b", message_index: 1, archived: true }),
    ]);
    expect(await search.search("cafe train")).toEqual([]);
    expect(await search.search("paris")).toEqual([expect.objectContaining({ session_id: "a", message_index: null })]);
    expect(await search.search("  ?! ")).toEqual([]);
  });

  it("drops a chat the cache forgot, evicted or wiped, and re-indexes one written again", async () => {
    let now = 0;
    const cache = memoryCache({ now: () => now, maxBytes: 400 });
    const search = createLocalSearch(cache);
    for (const id of ["one", "two"]) {
      now += 1;
      await cache.writeMessages(id, said(`walnut in chat ${id}`));
    }
    expect((await search.search("walnut")).map((result) => result.session_id).sort()).toEqual(["one", "two"]);
    await cache.forgetSession("one");
    expect((await search.search("walnut")).map((result) => result.session_id)).toEqual(["two"]);
    now += 1;
    await cache.writeMessages("two", said("now about hazelnuts"));
    expect(await search.search("walnut")).toEqual([]);
    expect((await search.search("hazel")).map((result) => result.session_id)).toEqual(["two"]);
    // Over the byte bound the chat written longest ago goes, and with it its entries.
    now += 1;
    await cache.writeMessages("three", said(`hazelnut ${"x".repeat(360)}`));
    expect((await search.search("hazel")).map((result) => result.session_id)).toEqual(["three"]);
    await cache.wipe();
    expect(await search.search("hazel")).toEqual([]);
  });

  it("answers searches typed fast without indexing a chat twice", async () => {
    const cache = memoryCache();
    await cache.writeMessages("a", said("pomegranate"));
    const search = createLocalSearch(cache);
    const answers = await Promise.all(["pom", "pome", "pomeg"].map((query) => search.search(query)));
    expect(answers.map((results) => results.length)).toEqual([1, 1, 1]);
  });

  it("takes hostile queries and huge messages: syntax characters are not syntax, a snippet stays short", async () => {
    const cache = memoryCache();
    const huge = `${"lorem ".repeat(100_000)}needle ${"ipsum ".repeat(100_000)}`;
    await cache.writeMessages("a", said(huge, 'a*b (c) "d" OR NOT e:f'));
    const search = createLocalSearch(cache);
    const [found] = await search.search("needle");
    expect(found?.message_index).toBe(0);
    expect(found!.snippet.length).toBeLessThanOrEqual(202);
    expect(found!.snippet.slice(found!.highlights[0]![0], found!.highlights[0]![1])).toBe("needle");
    expect((await search.search('"d" OR NOT e:f*')).map((result) => result.message_index)).toEqual([1]);
    for (const query of ["*".repeat(1000), "(".repeat(1000), "🍐".repeat(500), "a ".repeat(500), "\u0000\uffff"])
      expect(Array.isArray(await search.search(query))).toBe(true);
  });
});
