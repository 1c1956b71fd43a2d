// GET /search over a listening server and a SQLite file (docs/search.md): words in any order, prefixes, titles,
// BM25 order, plain-text snippets with offsets, an index that follows every change, and hostile queries.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Session } from "../../client/wire/index.ts";
import { SearchService } from "../../server/search/search-service.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { listen, listeningServer, owner, type Api } from "./support.ts";

let server: TestServer;
let api: Api;
beforeEach(async () => ({ server, api } = await listeningServer()));
afterEach(() => server.close());

async function chat(...messages: Array<[role: string, content: string]>): Promise<string> {
  const created = await api.call("POST", "/sessions", {});
  const id = created.json.session.id as string;
  for (const [role, content] of messages)
    expect((await api.call("POST", `/sessions/${id}/messages`, { role, content })).status).toBe(201);
  return id;
}

async function search(q: string, extra = ""): Promise<any[]> {
  const res = await api.call("GET", `/search?q=${encodeURIComponent(q)}${extra}`);
  expect(res.status, res.text).toBe(200);
  return res.json.results;
}

/** The highlighted words of a result, read back through its offsets. */
const highlighted = (result: { snippet: string; highlights: Array<[number, number]> }) =>
  result.highlights.map(([s, e]) => result.snippet.slice(s, e));

describe("search", () => {
  it("S1 finds messages by words in any order and by prefixes, with the session's title and the message index", async () => {
    const id = await chat(
      ["user", "How do I repot a fiddle leaf fig?"],
      ["assistant", "Repotting a fig: pick a pot one size up."],
    );
    await chat(["user", "Something else entirely"]);
    const results = await search("fig fiddle");
    expect(results).toEqual([
      {
        session_id: id,
        title: "How do I repot a fiddle leaf fig?",
        message_index: 0,
        snippet: "How do I repot a fiddle leaf fig?",
        highlights: [
          [17, 23],
          [29, 32],
        ],
        archived: false,
      },
    ]);
    const prefixed = await search("repot");
    expect(prefixed.map((r) => r.message_index).sort()).toEqual([0, 1]);
    expect(highlighted(prefixed.find((r) => r.message_index === 1))).toEqual(["Repotting"]);
    expect(await search("fid LEA")).toHaveLength(1);
    expect(await search("fig nowhere")).toEqual([]);
  });

  it("S2 orders by BM25: the message where the words weigh most comes first; limit caps the list", async () => {
    await chat([
      "user",
      "kayak trip notes: we met at the harbour, had lunch, walked the dunes and talked about everything",
    ]);
    const dense = await chat(["user", "kayak kayak kayak"]);
    await chat(["user", "a kayak was mentioned once among many other words of a long unrelated story about trains"]);
    const results = await search("kayak");
    expect(results).toHaveLength(3);
    expect(results[0].session_id).toBe(dense);
    expect(await search("kayak", "&limit=2")).toHaveLength(2);
  });

  it("S3 searches titles given with PATCH: a title hit has message_index null; renames and forks follow", async () => {
    const id = await chat(["user", "hello"]);
    expect((await api.call("PATCH", `/sessions/${id}`, { title: "Holiday planning" })).status).toBe(200);
    expect(await search("holiday")).toEqual([
      {
        session_id: id,
        title: "Holiday planning",
        message_index: null,
        snippet: "Holiday planning",
        highlights: [[0, 7]],
        archived: false,
      },
    ]);
    await api.call("PATCH", `/sessions/${id}`, { title: "Tax return" });
    expect(await search("holiday")).toEqual([]);
    expect((await search("hello"))[0].title).toBe("Tax return");
    const fork = (await api.call("POST", `/sessions/${id}/fork`, {})).json.session.id;
    // A fork copies the messages (not the title): its messages are found under their own session.
    expect((await search("hello")).map((r) => r.session_id).sort()).toEqual([id, fork].sort());
  });

  it("S4 follows edits and deletions of messages: old words leave, new ones come, indices shift", async () => {
    const id = await chat(["user", "first apple"], ["user", "second banana"], ["user", "third cherry"]);
    await api.call("PATCH", `/sessions/${id}/messages/0`, { content: "first durian" });
    expect(await search("apple")).toEqual([]);
    expect((await search("durian"))[0].message_index).toBe(0);
    await api.call("DELETE", `/sessions/${id}/messages`, { indices: [1] });
    expect(await search("banana")).toEqual([]);
    expect((await search("cherry"))[0].message_index).toBe(1);
  });

  it("S5 drops a session on session_deleted, flags archived sessions and keeps finding them", async () => {
    const gone = await chat(["user", "secret plans"]);
    const kept = await chat(["user", "public plans"]);
    const { events, sessions } = server.runtime.ctx;
    // What DELETE /sessions/{id} publishes; the index reacts to the event, whatever the store still holds.
    events.publish({ type: "session_deleted", session_id: gone });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await search("plans")).map((r) => r.session_id)).toEqual([kept]);
    sessions.change(kept, (session) => ({
      next: { ...session, archived: true } as Session,
      events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
      result: () => undefined,
    }));
    expect(await search("plans")).toMatchObject([{ session_id: kept, archived: true }]);
  });

  it("S6 snippets are plain text: markup stays as typed, long text is cut around the first match with ellipses", async () => {
    await chat(["user", "<b>bold</b> &amp; <script>alert(1)</script> marker"]);
    const [markup] = await search("marker");
    expect(markup.snippet).toBe("<b>bold</b> &amp; <script>alert(1)</script> marker");
    expect(highlighted(markup)).toEqual(["marker"]);
    const long = `${"lorem ipsum ".repeat(100)}needle   in\n\na haystack ${"dolor sit ".repeat(100)}`;
    await chat(["assistant", long]);
    const [cut] = await search("needle haystack");
    expect(cut.snippet.startsWith("…")).toBe(true);
    expect(cut.snippet.endsWith("…")).toBe(true);
    expect(cut.snippet).toContain("needle in a haystack");
    expect(cut.snippet.length).toBeLessThanOrEqual(202);
    expect(highlighted(cut)).toEqual(["needle", "haystack"]);
  });

  it("S7 folds case and accents like the index: café finds CAFE and the highlight covers the accented word", async () => {
    await chat(["user", "Un CAFÉ crème, s'il vous plaît 😀 merci"]);
    const [result] = await search("cafe creme merci");
    expect(highlighted(result)).toEqual(["CAFÉ", "crème", "merci"]);
  });

  it("S8 hostile queries never fail: FTS5 syntax is taken as words or ignored", async () => {
    await chat(["user", "near the end of the road, an NEAR AND OR NOT column:value"]);
    for (const q of [
      '"',
      '""',
      "*",
      "-",
      "NEAR(",
      'NEAR("a" "b", 2)',
      "road*",
      '"road',
      "-road",
      "road OR",
      "AND",
      "^road",
      "text:road",
      "(road",
      "road)",
      "{road}",
      "\u0000",
      "'",
      "%",
      "_",
      "\\",
      "   ",
    ]) {
      const res = await api.call("GET", `/search?q=${encodeURIComponent(q)}`);
      expect(res.status, `${q}: ${res.text}`).toBe(200);
      expect(Array.isArray(res.json.results)).toBe(true);
    }
    expect((await search('"road')).length).toBe(1);
    expect((await search("NEAR(")).length).toBe(1);
    expect((await search("column:value")).length).toBe(1);
    expect(await search("")).toEqual([]);
  });

  it("S9 bad parameters are 400 with the error body, never 500", async () => {
    for (const path of [
      "/search",
      "/search?q=a&limit=0",
      "/search?q=a&limit=101",
      "/search?q=a&limit=x",
      "/search?q=a&q=b",
      "/search?q=a&other=1",
      `/search?q=${"a".repeat(1001)}`,
    ]) {
      const res = await api.call("GET", path);
      expect(res.status, path).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
    }
    expect((await api.call("GET", "/search?q=a", undefined, null)).status).toBe(401);
  });

  it("S10 the index survives a restart, and is rebuilt from the sessions when its cursor is gone", async () => {
    const id = await chat(["user", "persistent walrus"]);
    await server.close(true);
    server = await startTestServer({}, { dataDir: server.dataDir });
    api = await listen(server);
    expect((await search("walrus"))[0].session_id).toBe(id);
    server.runtime.ctx.db.prepare("DELETE FROM search_docs").run();
    server.runtime.ctx.db.prepare("DELETE FROM meta WHERE key = 'search_cursor'").run();
    await server.close(true);
    server = await startTestServer({}, { dataDir: server.dataDir });
    api = await listen(server);
    expect((await search("walrus"))[0].session_id).toBe(id);
  });

  it("S12 past the ranking cap, a query is ranked among its newest matches only (cheap whatever matches)", async () => {
    const oldest = await chat(["user", "apple apple apple apple"]);
    const middle = await chat(["user", "apple pie"]);
    const newest = await chat(["user", "an apple a day keeps the doctor away, as they say in the orchard"]);
    const { db, transactor, search, sessions } = server.runtime.ctx;
    const capped = new SearchService(db, transactor, search.indexer, sessions, 2);
    // Uncapped, the dense oldest message ranks first; capped at 2, only the two newest are ranked.
    expect((await search.search("apple", 10, owner(server))).map((r) => r.session_id)).toEqual([
      oldest,
      middle,
      newest,
    ]);
    expect((await capped.search("apple", 10, owner(server))).map((r) => r.session_id)).toEqual([middle, newest]);
    expect((await capped.search("apple pie", 10, owner(server))).map((r) => r.session_id)).toEqual([middle]);
  });

  it("S13 events that change nothing searchable (streamed partials) cost the index no write", async () => {
    const id = await chat(["user", "first words"]);
    const { db, events } = server.runtime.ctx;
    const cursor = () => db.prepare("SELECT value FROM meta WHERE key = 'search_cursor'").get() as { value: string };
    await search("first");
    const before = cursor();
    for (let i = 0; i < 5; i++)
      events.publish({
        type: "partial",
        session_id: id,
        request_id: "r",
        message: { role: "assistant", content: "x" },
      });
    expect(await search("first")).toHaveLength(1);
    expect(cursor()).toEqual(before);
    await api.call("POST", `/sessions/${id}/messages`, { role: "user", content: "second words" });
    expect(await search("second")).toHaveLength(1);
    expect(Number(cursor().value)).toBeGreaterThan(Number(before.value));
  });

  it("S14 a pasted blob (a word of 100,000 letters) is indexed by its first 64, and costs the index no more", async () => {
    const blob = "QmFzZTY0".repeat(12_500);
    const id = await chat(["user", `here is the key ${blob} keep it safe`]);
    expect((await search("keep safe"))[0].session_id).toBe(id);
    expect((await search(blob.slice(0, 20)))[0].session_id).toBe(id);
    expect(await search(blob.slice(0, 65))).toEqual([]);
    const [hit] = await search("QmFzZTY0Qm");
    expect(highlighted(hit)[0]!.startsWith("QmFzZTY0Qm")).toBe(true);
  });
});
