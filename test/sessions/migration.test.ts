// Issue 11 item 15: a database written by the schema before structural sharing (whole sessions in every version
// and every event) is migrated on open: every version reads back exactly as stored, old events too, and the
// next save shares what it did not change.
import Database from "better-sqlite3";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message, Session } from "../../client/wire/index.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { migrations } from "../../server/db/migrations.ts";
import { Transactor } from "../../server/db/transactor.ts";
import { EventStore } from "../../server/events/event-store.ts";
import { SessionStore } from "../../server/sessions/session-store.ts";
import { tempDir } from "../support/server.ts";

const OLD_SCHEMA_VERSION = 5;
const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Versions 1..4 of one session as the old code saved them: append, append, modify, delete. */
function oldVersions(): Session[] {
  const first: Message = {
    role: "user",
    content: 'héllo "quoted" \u0001 ✓',
    metadata: { n: 1.5, nested: { list: [1, "two", null] } },
  };
  const second: Message = { role: "assistant", content: "second", metadata: {} };
  const base = {
    id: "s-old",
    agent_id: "default",
    created_at: "2026-01-01T00:00:00.000Z",
    title: "kept as is",
    model: "kept-model",
  };
  const at = (version: number, messages: Message[]): Session => ({
    ...base,
    version,
    updated_at: `2026-01-01T00:00:0${version}.000Z`,
    messages,
    metadata: { notifications: { items: [] } },
  });
  return [
    at(1, [first]),
    at(2, [first, second]),
    at(3, [first, { ...second, content: "SECOND" }]),
    at(4, [{ ...second, content: "SECOND" }]),
  ];
}

function writeOldDatabase(file: string, versions: Session[]): string {
  const db = new Database(file);
  for (const sql of migrations.slice(0, OLD_SCHEMA_VERSION)) db.exec(sql);
  db.pragma(`user_version = ${OLD_SCHEMA_VERSION}`);
  const head = versions[versions.length - 1]!;
  db.prepare(
    "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id) VALUES (?, ?, 0, ?, 1)",
  ).run(head.id, head.agent_id, head.version);
  for (const v of versions)
    db.prepare("INSERT INTO session_versions (session_id, version, created_at, body) VALUES (?, ?, 0, ?)").run(
      v.id,
      v.version,
      JSON.stringify(v),
    );
  // An old event: the whole session inline in its body.
  const body = JSON.stringify({
    type: "message_appended",
    session_id: head.id,
    role: "user",
    content: "x",
    metadata: {},
    message: { role: "user", content: "x", metadata: {} },
    session: versions[1],
    timestamp: "2026-01-01T00:00:02.000Z",
  });
  db.prepare(
    "INSERT INTO events (type, session_id, request_id, created_at, body) VALUES ('message_appended', ?, NULL, 0, ?)",
  ).run(head.id, body);
  db.close();
  return `{"event_id":"00000000000000000001",${body.slice(1)}`;
}

describe("migration of a database written by the old schema", () => {
  it("reads every old version and old event back exactly, and the next save shares unchanged messages", () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = join(dir, "server.sqlite");
    const versions = oldVersions();
    const oldEvent = writeOldDatabase(file, versions);

    const db = openDatabase(file);
    dbs.push(db);
    expect(db.pragma("user_version", { simple: true })).toBe(migrations.length);
    const sessions = new SessionStore(db);
    const events = new EventStore(db, new Transactor(db));
    for (const v of versions) expect(JSON.stringify(sessions.version(v.id, v.version))).toBe(JSON.stringify(v));
    const head = sessions.get("s-old")!;
    expect(JSON.stringify(head.session)).toBe(JSON.stringify(versions[3]));
    expect(head.cursorEventId).toBe(1);
    expect(JSON.stringify(events.list({ sinceId: 0, limit: 10 }).events[0])).toBe(oldEvent);
    // Three distinct bodies across four versions; no version holds a copy of its session any more.
    expect(db.prepare("SELECT count(*) AS n FROM message_bodies").get()).toEqual({ n: 3 });
    const fields = db.prepare<[], { body: string }>("SELECT body FROM session_versions").all();
    expect(fields.every((row) => (JSON.parse(row.body) as Session).messages.length === 0)).toBe(true);

    const next = sessions.save({
      ...head.session,
      messages: [...head.session.messages, { role: "user", content: "new", metadata: {} }],
    });
    expect(next.version).toBe(5);
    expect(db.prepare("SELECT count(*) AS n FROM message_bodies").get()).toEqual({ n: 4 });
    expect(JSON.stringify(new SessionStore(db).get("s-old")!.session)).toBe(JSON.stringify(next));
    expect(JSON.stringify(sessions.version("s-old", 4))).toBe(JSON.stringify(versions[3]));
  });
});
