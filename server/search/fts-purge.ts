// Deleted words out of the full-text indexes (docs/search.md "Index"). search_fts is contentless with
// contentless_delete: deleting a row only marks it deleted, and its words stay in the index's segment pages until a merge
// rewrites them; chat_document_fts (a chat's copies of its documents) likewise keeps a deleted chunk's words until its
// delete markers are merged. So after a chat is deleted both indexes are merged down completely ('merge' with a
// negative page count: every segment, as 'optimize' does), a few pages a step with the event loop free between steps,
// the freed space overwritten; then the WAL, which held the old pages, is checkpointed and truncated. A few seconds
// after the deletion no file of the data folder holds the chat's words. The cost is a rewrite of the index per burst
// of deletions (deletions that come while one runs are covered by running again once).
import type { Db } from "../db/database.ts";
import { overwritingFreedSpace } from "../db/secure-delete.ts";
import type { Transactor } from "../db/transactor.ts";

/** The full-text tables merged after a deletion. */
export const PURGED_FTS_TABLES = ["search_fts", "chat_document_fts"] as const;

/** Index pages one step writes at most (a few milliseconds): the loop gets a turn between steps. */
export const MERGE_PAGES = 16;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface FtsPurgeParts {
  db: Db;
  transactor: Transactor;
  /** Checkpoints and truncates the WAL (Checkpointer.truncate); false when a reader kept it from finishing. */
  truncateWal: () => Promise<boolean>;
  onError: (error: unknown) => void;
}

export class FtsPurge {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly totalChanges;

  constructor(private readonly parts: FtsPurgeParts) {
    this.totalChanges = parts.db.prepare<[], { n: number }>("SELECT total_changes() AS n");
  }

  /** Merges the deleted rows' words away, in the background; resolves when done (tests wait for it). */
  request(): Promise<void> {
    this.again = true;
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Resolves once no purge is running (tests wait for it instead of for time). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(): Promise<void> {
    try {
      await nextTurn();
      while (this.again && !this.stopped) {
        this.again = false;
        for (const table of PURGED_FTS_TABLES) while (!this.stopped && this.step(table)) await nextTurn();
      }
      if (!this.stopped) await this.parts.truncateWal();
    } catch (error) {
      this.parts.onError(error);
    }
  }

  /** One step of merging `table` down; false when there was nothing left to merge. */
  private step(table: (typeof PURGED_FTS_TABLES)[number]): boolean {
    return overwritingFreedSpace(this.parts.db, () =>
      this.parts.transactor.run(() => {
        const before = this.totalChanges.get()!.n;
        this.parts.db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`).run(-MERGE_PAGES);
        // SQLite's documented test: a merge that did any work changed at least two rows.
        return this.totalChanges.get()!.n - before >= 2;
      }),
    );
  }
}
