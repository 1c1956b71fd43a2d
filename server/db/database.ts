// Opens the server's SQLite file with the durability settings the project chose (docs/events.md):
// WAL with synchronous=NORMAL. A commit survives a process crash; after a power loss the last few commits may
// roll back, never half of one. Every mutation and the events it causes share one transaction, so a rollback
// loses both together and an event never describes a mutation that did not happen.
//
// The file and its folder are private (file-modes.ts). SQLite gives the WAL, SHM and journal files the mode of the
// database file, so creating that file 0600 before SQLite opens it covers them all.
import Database from "better-sqlite3";
import { dirname } from "node:path";
import { createPrivateFile, makePrivateDir, restrictFile } from "./file-modes.ts";
import { migrations } from "./migrations.ts";

export type Db = Database.Database;

export function openDatabase(file: string): Db {
  if (file !== ":memory:") preparePrivateFile(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  // Deleted content does not linger in the file (a deleted chat's title in the search index, a pruned event): freed
  // cells are zeroed where that costs no extra I/O. Deleting a chat goes further, for its transaction only (overflow
  // pages too): docs/sessions.md "Delete".
  db.pragma("secure_delete = FAST");
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/** Creates the folder 0700 and the database file 0600, and tightens the ones an older start left looser. */
function preparePrivateFile(file: string): void {
  makePrivateDir(dirname(file));
  createPrivateFile(file);
  for (const suffix of ["-wal", "-shm", "-journal"]) restrictFile(file + suffix);
}
