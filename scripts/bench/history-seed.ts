// The data of the history benchmarks (scripts/bench/history-server.ts), written by a process of its own so none of its
// memory is counted in the server's RSS. A runtime is started once on the data folder to make the schema and the
// people, then closed; the chats go in through SQL in one transaction, row for row what the store and the search
// indexer write for a chat saved once (its session row with the list's keys and summary, one version, its messages,
// their search rows), with the indexer's cursor at the log's end so the server starts with its index caught up.
// Through the store (a create and a change a chat, with their events, then the indexer following them) 100,000 chats
// had not been written after 15 minutes on the loaded machine.
// --people people (the first is the Owner, whom the admin token acts as), each owning --chats chats of --messages
// messages (the Owner's first chat --long messages long; every 500th chat pinned), people interleaved in time, text
// drawn from a fixed vocabulary so searches find some chats and not others.
// Usage (forked): history-seed.ts <data dir> <admin token> '{"people":1,"chats":10000,"messages":20,"long":5000}'
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Message, Session } from "../../client/wire/index.ts";
import { sessionSummaryOf, sessionTitle } from "../../client/wire/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Meta } from "../../server/db/meta.ts";
import { createRuntime } from "../../server/runtime.ts";
import { DATABASE_FILE } from "../../server/runtime-parts.ts";
import { SearchDocuments } from "../../server/search/documents.ts";
import { TITLE_INDEX } from "../../server/search/indexer.ts";
import { searchTag } from "../../server/search/person-words.ts";
import { historyShape, type HistoryShape } from "./history-shape.ts";
import { seededRandom } from "../../test/support/seeded-random.ts";
import { VOCABULARY, wordOf } from "./history-words.ts";

/** When the first chat was made; each later one (of any person) a second after the one before. */
const EPOCH = Date.parse("2024-01-01T00:00:00Z");
const SEARCHED_ROLES = new Set(["user", "assistant"]);

const random = seededRandom(7);
const sentence = () => Array.from({ length: 8 }, () => wordOf(Math.floor(random() * VOCABULARY))).join(" ");

function messagesOf(count: number, chat: number): Message[] {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: `Chat ${chat}, message ${i}: ${sentence()}. An ordinary sentence about everyday things.`,
    metadata: {},
  }));
}

/**
 * The people: the Owner and people-1 others, made by the server itself. Answers their ids, the Owner first, and the
 * newest event id then (where the search index's cursor goes).
 */
async function makePeople(dir: string, token: string, people: number): Promise<{ owners: string[]; latest: number }> {
  const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: token });
  const owners = [runtime.ctx.personStore.actingAdmin().id];
  for (let p = 1; p < people; p++) owners.push(runtime.ctx.personStore.create({ name: `Person ${p}` }).id);
  const latest = runtime.ctx.events.latestId;
  await runtime.close();
  return { owners, latest };
}

/** The statements of one chat's rows, as the session store, its message log and the search indexer write them. */
function writerOf(db: Db) {
  const session = db.prepare(
    `INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id, owner_id, updated_at, pinned, archived,
       summary) VALUES (?, ?, ?, 1, 0, ?, ?, ?, 0, ?)`,
  );
  const version = db.prepare(
    "INSERT INTO session_versions (session_id, version, created_at, body) VALUES (?, 1, ?, ?)",
  );
  const body = db.prepare("INSERT INTO message_bodies (id, body) VALUES (?, ?)");
  const place = db.prepare(
    "INSERT INTO session_messages (session_id, position, from_version, to_version, message_id) VALUES (?, ?, 1, NULL, ?)",
  );
  const searchSession = db.prepare("INSERT INTO search_sessions (session_id, title, archived) VALUES (?, ?, 0)");
  const docs = new SearchDocuments(db);
  let nextBody = (db.prepare<[], { id: number | null }>("SELECT max(id) AS id FROM message_bodies").get()?.id ?? 0) + 1;
  return (chat: Session, owner: string, createdAt: number): void => {
    const tags = [searchTag(owner)];
    session.run(chat.id, chat.agent_id, createdAt, owner, chat.updated_at, chat.pinned ? 1 : 0, summaryOf(chat));
    version.run(chat.id, createdAt, JSON.stringify({ ...chat, messages: [] }));
    chat.messages.forEach((message, position) => {
      body.run(nextBody, JSON.stringify(message));
      place.run(chat.id, position, nextBody++);
      if (SEARCHED_ROLES.has(message.role)) docs.add(chat.id, position, message.content, tags);
    });
    if (chat.title !== undefined) docs.add(chat.id, TITLE_INDEX, chat.title, tags);
    searchSession.run(chat.id, sessionTitle(chat));
  };
}

const summaryOf = (chat: Session) => JSON.stringify(sessionSummaryOf(chat));

/** How many messages each chat of a person holds: the Owner's `messages`, the others' `others_messages` if given. */
const messagesEach = (shape: HistoryShape, isOwner: boolean) =>
  isOwner ? shape.messages : (shape.others_messages ?? shape.messages);

/** Every person's chats, people interleaved (as they would be written), in one transaction. Answers the long chat. */
function writeChats(db: Db, owners: string[], latest: number, shape: HistoryShape): string {
  const write = writerOf(db);
  let longId = "";
  let order = 0;
  db.transaction(() => {
    for (let chat = 0; chat < shape.chats; chat++)
      for (const owner of owners) {
        const long = chat === 0 && owner === owners[0];
        const createdAt = EPOCH + 1000 * order++;
        const iso = new Date(createdAt).toISOString();
        const session: Session = {
          id: randomUUID(),
          agent_id: "default",
          version: 1,
          created_at: iso,
          updated_at: iso,
          messages: messagesOf(long ? shape.long : messagesEach(shape, owner === owners[0]), chat),
          metadata: {},
          title: `Chat ${chat}`,
          pinned: chat % 500 === 1,
        };
        write(session, owner, createdAt);
        if (long) longId = session.id;
      }
    new Meta(db).set("search_cursor", String(latest)); // the index holds every chat: nothing to catch up
  })();
  return longId;
}

const dir = process.argv[2]!;
const token = process.argv[3]!;
const shape = historyShape.parse(JSON.parse(process.argv[4]!));
const start = process.hrtime.bigint();
const { owners, latest } = await makePeople(dir, token, shape.people);
const db = openDatabase(join(dir, DATABASE_FILE));
const longId = writeChats(db, owners, latest, shape);
db.close();
process.send!({ type: "seeded", long_id: longId, seed_ms: Math.round(Number(process.hrtime.bigint() - start) / 1e6) });
process.disconnect();
