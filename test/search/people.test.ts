// Search among people (docs/search.md "One index, read per person"): each word is indexed once for every person who
// may see its chat, behind that person's tag, so a query reads only its person's rows; shares, unshares and transfers
// move a chat's words to the people who see it now; an index of the untagged kind is rebuilt by the migration.
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { DATABASE_FILE } from "../../server/runtime-parts.ts";
import { MAX_ROW_WORDS, searchTag, TAG_LENGTH, taggedText } from "../../server/search/person-words.ts";
import { SearchService } from "../../server/search/search-service.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { chatOf, startHousehold, type Household } from "../people/support.ts";

let h: Household | undefined;
afterEach(async () => {
  await h?.server.close();
  h = undefined;
});

async function found(server: TestServer, token: string | undefined, q: string): Promise<string[]> {
  const answer = await server.request({ method: "GET", url: `/search?q=${encodeURIComponent(q)}`, token });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.results.map((r: { session_id: string }) => r.session_id);
}

/** Rows of the index holding `word` (as a prefix) for `personId`, or untagged when no person is given. */
function indexRows(server: TestServer, word: string, personId?: string): number {
  const term = personId === undefined ? word : searchTag(personId) + word;
  return (
    server.runtime.ctx.db
      .prepare<[string], { n: number }>("SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ?")
      .get(`"${term}"*`)?.n ?? 0
  );
}

it("SP1 a person's query reads only their own rows: each word is in the index under its person's tag alone", async () => {
  h = await startHousehold();
  const { server, admin, adult, child } = h;
  const chats = new Map([
    [admin, await chatOf(server, admin.plain.token, "walrus alpha")],
    [adult, await chatOf(server, adult.plain.token, "walrus beta")],
    [child, await chatOf(server, child.plain.token, "walrus gamma", "kids")],
  ]);
  for (const [person, chat] of chats) {
    expect(await found(server, person.e2e.token, "walrus")).toEqual([chat]);
    // The index itself: one row of "walrus" for each person (their own), none without a tag.
    expect(indexRows(server, "walrus", person.id)).toBe(1);
  }
  expect(indexRows(server, "walrus")).toBe(0);
  expect(await found(server, adult.plain.token, "alpha")).toEqual([]);
  expect(await found(server, adult.plain.token, "gamma")).toEqual([]);
});

it("SP2 the ranking cap counts the person's own matches: another person's newer matches never push theirs out", async () => {
  h = await startHousehold();
  const { server, admin, adult } = h;
  const older = [
    await chatOf(server, admin.plain.token, "apple one"),
    await chatOf(server, admin.plain.token, "apple two"),
  ];
  for (let i = 0; i < 3; i++) await chatOf(server, adult.plain.token, `apple ${i}`);
  const { db, transactor, search, sessions } = server.runtime.ctx;
  const capped = new SearchService(db, transactor, search.indexer, sessions, 2);
  const mine = await capped.search("apple", 10, admin.id);
  expect(mine.map((r) => r.session_id).sort()).toEqual([...older].sort());
});

it("SP3 sharing, unsharing and a transfer move a chat's words to the people who see it now", async () => {
  h = await startHousehold();
  const { server, admin, adult, child } = h;
  const chat = await chatOf(server, admin.plain.token, "lighthouse keeper");
  const shareUrl = `/sessions/${chat}/shares`;
  const shared = await server.request({
    method: "POST",
    url: shareUrl,
    token: admin.plain.token,
    payload: { person_id: adult.id, access: "read" },
  });
  expect(shared.status).toBe(200);
  expect(await found(server, adult.e2e.token, "lighthouse")).toEqual([chat]);
  expect(indexRows(server, "lighthouse", adult.id)).toBe(1);
  expect(await found(server, child.e2e.token, "lighthouse")).toEqual([]);
  expect(indexRows(server, "lighthouse", child.id)).toBe(0);

  const unshared = await server.request({ method: "DELETE", url: `${shareUrl}/${adult.id}`, token: admin.plain.token });
  expect(unshared.status).toBe(204);
  expect(await found(server, adult.e2e.token, "lighthouse")).toEqual([]);
  expect(indexRows(server, "lighthouse", adult.id)).toBe(0);
  expect(await found(server, admin.e2e.token, "lighthouse")).toEqual([chat]);

  // The adult's own chat goes to the child when the adult is removed: the child finds it, its rows are the child's.
  const adults = await chatOf(server, adult.plain.token, "seashell collection");
  const removed = await server.request({ method: "DELETE", url: `/people/${adult.id}?chats=transfer&to=${child.id}` });
  expect(removed.status).toBe(204);
  expect(await found(server, child.e2e.token, "seashell")).toEqual([adults]);
  expect(indexRows(server, "seashell", child.id)).toBe(1);
  expect(indexRows(server, "seashell", adult.id)).toBe(0);
  expect(await found(server, admin.e2e.token, "seashell")).toEqual([]);
});

it("SP4 hostile queries: FTS syntax, another person's tag typed before their word, and a huge query find nothing of theirs", async () => {
  h = await startHousehold();
  const { server, admin, adult } = h;
  await chatOf(server, adult.plain.token, "secret narwhal plans");
  const tag = searchTag(adult.id);
  for (const q of [
    `${tag}narwhal`,
    `${tag} narwhal`,
    `"${tag}narwhal"*`,
    `{text}: ${tag}narwhal`,
    `narwhal OR ${tag}narwhal`,
    `NEAR(${tag}secret ${tag}narwhal)`,
    `${tag}${"n".repeat(990)}`,
    "narwhal ".repeat(125),
  ])
    expect(await found(server, admin.plain.token, q), q).toEqual([]);
  expect(await found(server, adult.plain.token, "narwhal")).toHaveLength(1);
});

it("SP5 a data folder indexed before this version (untagged words) is reindexed per person at its first start", async () => {
  const first = await startTestServer();
  const created = await first.request({ method: "POST", url: "/sessions", payload: {} });
  const id = created.json.session.id as string;
  await first.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content: "heron" } });
  expect(await found(first, undefined, "heron")).toEqual([id]); // indexed, the cursor at the log's end
  await first.close(true);
  // The index as version 20 of the schema had it: untagged words, prefixes of 2 and 3, the cursor at the log's end.
  const db = new Database(join(first.dataDir, DATABASE_FILE));
  db.exec(`DROP TABLE search_fts;
    CREATE VIRTUAL TABLE search_fts USING fts5(
      text, content = '', contentless_delete = 1, prefix = '2 3', tokenize = 'unicode61 remove_diacritics 2');
    INSERT INTO search_fts (rowid, text) SELECT id, 'heron' FROM search_docs;`);
  expect(db.prepare("SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH 'heron'").get()).toEqual({ n: 1 });
  db.pragma("user_version = 20");
  db.close();
  const server = await startTestServer({}, { dataDir: first.dataDir });
  try {
    expect(indexRows(server, "heron")).toBe(0);
    expect(await found(server, undefined, "heron")).toEqual([id]);
  } finally {
    await server.close();
  }
});

it("SP6 a row is given at most MAX_ROW_WORDS words over all its tags, however many people see its chat", () => {
  const tags = Array.from({ length: 21 }, (_, i) => searchTag(`per_${i}`));
  const text = "word ".repeat(100_000);
  const once = taggedText(text, tags.slice(0, 1)).split(" ");
  expect(once).toHaveLength(100_000);
  const shared = taggedText(text, tags).split(" ");
  expect(shared.length).toBe(Math.floor(MAX_ROW_WORDS / 21) * 21);
  expect(shared.length).toBeLessThanOrEqual(MAX_ROW_WORDS);
  expect(new Set(shared.map((word) => word.slice(0, TAG_LENGTH)))).toEqual(new Set(tags));
  expect(taggedText("   ?! ", tags)).toBe("");
});
