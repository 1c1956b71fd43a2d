// A fresh SQLite file of the server's schema (every migration run) in a temp dir of its own, for the unit tests that
// drive one part over a real database and no server. Each is closed (unless the test closed it) and removed after the
// test that opened it. It imports only the database module: mutation testing pays for every import on each mutant's
// run (docs/testing.md "Mutation score").
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { tempDir } from "./temp-dir.ts";

export interface TempDatabase {
  db: Db;
  /** Its folder, for a part that keeps files beside the database (the server key). */
  dir: string;
}

/** Call at a file's top level; the function it returns opens one more database for the running test. */
export function useTempDatabases(): () => TempDatabase {
  const opened: TempDatabase[] = [];
  afterEach(() => {
    for (const { db, dir } of opened.splice(0)) {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, "server.sqlite"));
    opened.push({ db, dir });
    return { db, dir };
  };
}
