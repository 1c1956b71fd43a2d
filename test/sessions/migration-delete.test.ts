// docs/sessions.md D7: migration 8 (deleting sessions) backfills each existing session's source_session_id from its
// first version, so a fork made before the upgrade still finds the session it came from (its attachments' owner)
// once that session is deleted.
import Database from "better-sqlite3";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { migrations } from "../../server/db/migrations.ts";
import { SessionStore } from "../../server/sessions/session-store.ts";
import { tempDir } from "../support/server.ts";

const BEFORE_DELETE = 7;
let dir: string;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("D7: backfills source_session_id, so lineage survives the source's deletion", () => {
  dir = tempDir();
  const file = join(dir, "server.sqlite");
  const old = new Database(file);
  for (const sql of migrations.slice(0, BEFORE_DELETE)) old.exec(sql);
  old.pragma(`user_version = ${BEFORE_DELETE}`);
  const fields = (id: string, source?: string) =>
    JSON.stringify({
      id,
      agent_id: "default",
      version: 1,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      ...(source ? { source_session_id: source } : {}),
      messages: [],
      metadata: {},
    });
  for (const [id, source] of [
    ["root", undefined],
    ["fork", "root"],
    ["fork-of-fork", "fork"],
  ] as const) {
    old
      .prepare(
        "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id) VALUES (?, 'default', 0, 1, 0)",
      )
      .run(id);
    old
      .prepare("INSERT INTO session_versions (session_id, version, created_at, body) VALUES (?, 1, 0, ?)")
      .run(id, fields(id, source));
  }
  old.close();

  db = openDatabase(file);
  expect(db.prepare("SELECT id, source_session_id, deleted_at FROM sessions ORDER BY id").all()).toEqual([
    { id: "fork", source_session_id: "root", deleted_at: null },
    { id: "fork-of-fork", source_session_id: "fork", deleted_at: null },
    { id: "root", source_session_id: null, deleted_at: null },
  ]);
  const store = new SessionStore(db);
  db.transaction(() => store.delete("fork"))();
  expect(store.get("fork")).toBeUndefined();
  expect(
    store
      .list()
      .map((s) => s.id)
      .sort(),
  ).toEqual(["fork-of-fork", "root"]);
  expect(store.lineage("fork-of-fork")).toEqual(["fork-of-fork", "fork", "root"]);
  expect(store.hasLiveDescendant("fork")).toBe(true);
  expect(store.hasLiveDescendant("fork-of-fork")).toBe(false);
});
