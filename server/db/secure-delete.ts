// SQLite's secure_delete for one piece of work (docs/sessions.md "Delete"): the space the work frees is overwritten
// with zeros instead of keeping the old text in free pages, so deleted content is gone from the file once the WAL is
// checkpointed. Only for deletions of a person's content: event pruning and other deletes keep the cheaper default.
import type { Db } from "./database.ts";

export function overwritingFreedSpace<T>(db: Db, work: () => T): T {
  const before = db.pragma("secure_delete", { simple: true }) as number;
  db.pragma("secure_delete = ON");
  try {
    return work();
  } finally {
    db.pragma(`secure_delete = ${before}`);
  }
}
