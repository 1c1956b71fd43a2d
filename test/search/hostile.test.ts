// Search survives any message (docs/search.md invariants 11 and 12): a sent message holding a run of 6 MiB of letters
// is indexed by its start and breaks no search, before or after a restart; a session the indexer cannot take is
// logged and passed over, and the index goes on following every other session.
import { expect, it } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { DOCS_PER_PASS, SearchIndexer } from "../../server/search/indexer.ts";
import { SearchService } from "../../server/search/search-service.ts";
import { createSession, send, useRunner, waitForEvent } from "../runner/helpers.ts";
import { listen, owner, type Api } from "./support.ts";

const runner = useRunner();

type Ctx = Awaited<ReturnType<typeof runner.start>>["runtime"]["ctx"];

/** Gives the session `count` user messages "<word> number<n>" in one change (as an import or a paste would). */
function fillChat(sessions: Ctx["sessions"], id: string, count: number, word: string): void {
  sessions.change(id, (session) => ({
    next: {
      ...session,
      messages: Array.from({ length: count }, (_, n) => ({ role: "user" as const, content: `${word} number${n}` })),
    },
    events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
    result: () => undefined,
  }));
}

/** An indexer of the runtime's parts reading through `sessions`, every failure thrown (stop the runtime's first). */
function indexerOver(ctx: Ctx, sessions: ConstructorParameters<typeof SearchIndexer>[0]["sessions"]): SearchIndexer {
  return new SearchIndexer({
    db: ctx.db,
    transactor: ctx.transactor,
    events: ctx.events,
    truncateWal: async () => true,
    sessions,
    onError: (error) => {
      throw error;
    },
    onSkipped: (_sessionId, error) => {
      throw error;
    },
  });
}

async function searchIds(api: Api, q: string): Promise<string[]> {
  const res = await api.call("GET", `/search?q=${encodeURIComponent(q)}`);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.json.results.map((r: { session_id: string }) => r.session_id);
}

it("S15 a sent message with a 6 MiB run of letters is found by its start; every search answers, also after a restart", async () => {
  let server = await runner.start();
  let api = await listen(server);
  const before = await createSession(server);
  await server.request({
    method: "POST",
    url: `/sessions/${before}/messages`,
    payload: { role: "user", content: "walrus" },
  });
  const long = await createSession(server);
  const run = "Zq".repeat(3 * 1024 * 1024);
  runner.backend.script(dialectStream("openai", { content: "noted" }));
  await waitForEvent(server, await send(server, long, { content: `blob ${run} tail` }));
  const after = await createSession(server);
  await server.request({
    method: "POST",
    url: `/sessions/${after}/messages`,
    payload: { role: "user", content: "walrus too" },
  });

  expect(await searchIds(api, "walrus")).toEqual(expect.arrayContaining([before, after]));
  expect(await searchIds(api, "blob tail")).toEqual([long]);
  expect(await searchIds(api, run.slice(0, 64))).toEqual([long]);
  expect(await searchIds(api, run.slice(0, 65))).toEqual([]);

  await server.close(true);
  server = await runner.start({}, {}, server.dataDir);
  api = await listen(server);
  expect(await searchIds(api, "walrus")).toHaveLength(2);
  expect(await searchIds(api, "zqzq")).toEqual([long]);
  const later = await createSession(server);
  await server.request({
    method: "POST",
    url: `/sessions/${later}/messages`,
    payload: { role: "user", content: "narwhal" },
  });
  expect(await searchIds(api, "narwhal")).toEqual([later]);
});

it("S16 a session the indexer cannot take is logged and skipped; later sessions are indexed and search answers", async () => {
  const server = await runner.start();
  const { db, transactor, events, sessions, search } = server.runtime.ctx;
  search.indexer.stop(); // the index below replaces the runtime's
  const poisoned = await createSession(server);
  const skipped: Array<{ sessionId: string; error: unknown }> = [];
  const indexer = new SearchIndexer({
    db,
    transactor,
    events,
    truncateWal: async () => true,
    sessions: {
      getPage: (id, ...page) => {
        if (id === poisoned) throw new RangeError("Maximum call stack size exceeded");
        return sessions.getPage(id, ...page);
      },
      list: (...args) => sessions.list(...args),
    },
    onError: (error) => {
      throw error;
    },
    onSkipped: (sessionId, error) => skipped.push({ sessionId, error }),
  });
  indexer.start();
  const service = new SearchService(db, transactor, indexer, sessions);
  sessions.append(poisoned, { role: "user", content: "poisoned narwhal" });
  const healthy = await createSession(server);
  sessions.append(healthy, { role: "user", content: "healthy narwhal" });
  expect((await service.search("narwhal", 10, owner(server))).map((r) => r.session_id)).toEqual([healthy]);
  expect(skipped.map((s) => s.sessionId)).toContain(poisoned);
  expect(String(skipped[0]!.error)).toContain("Maximum call stack");
  const next = await createSession(server);
  sessions.append(next, { role: "user", content: "another narwhal" });
  const found = await service.search("narwhal", 10, owner(server));
  expect(found.map((r) => r.session_id).sort()).toEqual([healthy, next].sort());
  indexer.stop();
});

it("S17 a chat that arrives with 1,000 messages at once is indexed in passes of DOCS_PER_PASS rows; a search waits for 20 passes", async () => {
  const server = await runner.start();
  const { db, transactor, events, sessions, search } = server.runtime.ctx;
  search.indexer.stop(); // the passes below are counted by hand
  const id = await createSession(server);
  fillChat(sessions, id, 1000, "walrus");
  const indexer = indexerOver(server.runtime.ctx, sessions);
  indexer.start();
  const rows = () => (db.prepare("SELECT count(*) AS n FROM search_docs").get() as { n: number }).n;
  const before = rows();
  // One catch-up of the log's follower is one pass: the indexer stops for a turn with the chat half done.
  events.follower.catchUp();
  expect(rows() - before).toBe(DOCS_PER_PASS);
  expect(indexer.position()).toBeLessThan(events.latestId);
  // A wait bounded to two passes returns after them (a search behind an import answers from what is indexed), with
  // at most the one pass the follower took by itself on the turn between.
  await indexer.caughtUp(2);
  expect(rows() - before).toBeGreaterThanOrEqual(3 * DOCS_PER_PASS);
  expect(rows() - before).toBeLessThanOrEqual(4 * DOCS_PER_PASS);
  expect(indexer.position()).toBeLessThan(events.latestId);
  const service = new SearchService(db, transactor, indexer, sessions);
  const found = await service.search("number999", 10, owner(server));
  expect(found.map((r) => [r.session_id, r.message_index])).toEqual([[id, 999]]);
  expect(rows() - before).toBe(1000);
  expect(indexer.position()).toBe(events.latestId);
  indexer.stop();
});

it("S18 a long chat is read from the store a page at a time, never whole, and every message is indexed", async () => {
  const server = await runner.start();
  const { db, transactor, sessions, search } = server.runtime.ctx;
  search.indexer.stop(); // the index below replaces the runtime's, so its reads are seen
  const id = await createSession(server);
  fillChat(sessions, id, 1200, "dugong");
  const pages: number[] = [];
  const indexer = indexerOver(server.runtime.ctx, {
    getPage: (sessionId, ...page) => {
      const read = sessions.getPage(sessionId, ...page);
      if (sessionId === id) pages.push(read.messages.length);
      return read;
    },
    list: (...args) => sessions.list(...args),
  });
  indexer.start();
  const service = new SearchService(db, transactor, indexer, sessions);
  const found = await service.search("number1199", 10, owner(server));
  expect(found.map((r) => [r.session_id, r.message_index])).toEqual([[id, 1199]]);
  expect((await service.search("number0", 10, owner(server))).map((r) => r.message_index)).toEqual([0]);
  // Loading the whole chat at once held the loop for the length of the read (docs/benchmarks.md "Export and import").
  expect(Math.max(...pages)).toBeLessThanOrEqual(500);
  expect(pages.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(1200);
  indexer.stop();
});

it("S19 a page's snippets are read in one call naming only its results' messages, at their indices after edits and deletions", async () => {
  const server = await runner.start();
  const { db, transactor, sessions, search } = server.runtime.ctx;
  const id = await createSession(server);
  fillChat(sessions, id, 1200, "manatee");
  // Deleted rows leave gaps among the stored positions: an index is a rank among the head's rows, not a position.
  sessions.deleteMessages(id, [10, 11, 500]);
  sessions.modify(id, 3, "manatee number3 edited");
  const gone = await createSession(server);
  fillChat(sessions, gone, 2, "manatee");
  const calls: Array<ReadonlyArray<readonly [string, number]>> = [];
  const service = new SearchService(db, transactor, search.indexer, {
    shownAt: (places) => (calls.push(places), sessions.shownAt(places)),
  });

  const [found] = await service.search("number1195", 10, owner(server));
  expect([found!.message_index, found!.snippet]).toEqual([1192, "manatee number1195"]);
  const page = await service.search("manatee", 20, owner(server));
  expect(page).toHaveLength(20);
  expect(calls.map((places) => places.length)).toEqual([1, 20]);
  const head = sessions.get(id).messages;
  for (const result of page.filter((r) => r.session_id === id))
    expect(result.snippet.replace(/…/g, "")).toBe(head[result.message_index!]!.content);
  expect((await service.search("edited", 10, owner(server))).map((r) => r.message_index)).toEqual([3]);

  sessions.delete(gone);
  const shown = sessions.shownAt([
    [id, 0],
    [id, 1196],
    [id, 1197],
    [id, -1],
    [gone, 0],
  ]);
  expect([...shown.keys()]).toEqual([id]);
  expect([...shown.get(id)!.entries()]).toEqual([
    [0, head[0]],
    [1196, head[1196]],
  ]);
});
