// The forwarder's cursor: the id of the newest event the bridge has acknowledged, kept in the meta table so a
// restart resumes where the bridge left off. Writes are coalesced to one per turn of the event loop: acks arrive
// in bursts when pushes are pipelined, and one small write covers the burst. A failed write (disk full, SQLITE_BUSY)
// is logged and leaves the cursor dirty: the next advance writes it, and until then a restart resends from the last
// stored cursor (the bridge drops what it already relayed).
import type { FastifyBaseLogger } from "fastify";
import { formatEventId } from "../../client/wire/index.ts";
import { Meta } from "../db/meta.ts";
import type { Db } from "../db/database.ts";

const KEY = "forwarder_cursor";

export class ForwarderCursor {
  private readonly meta: Meta;
  private acked: number;
  private stored: number;
  private scheduled = false;
  private closed = false;

  constructor(
    db: Db,
    private readonly epoch: string,
    private readonly log: Pick<FastifyBaseLogger, "error">,
  ) {
    this.meta = new Meta(db);
    // The cursor belongs to one store: a new store (new epoch) starts from the beginning.
    const saved = /^(\d+)@(.+)$/.exec(this.meta.get(KEY) ?? "");
    this.acked = saved && saved[2] === epoch ? Number(saved[1]) : 0;
    this.stored = this.acked;
  }

  get value(): number {
    return this.acked;
  }

  get formatted(): string {
    return formatEventId(this.acked);
  }

  advance(to: number): void {
    if (to <= this.acked) return;
    this.acked = to;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes the cursor if it moved; never throws (it runs from setImmediate, where a throw would end the process). */
  flush(): void {
    this.scheduled = false;
    if (this.closed || this.acked === this.stored) return;
    try {
      this.meta.set(KEY, `${this.acked}@${this.epoch}`);
      this.stored = this.acked;
    } catch (error) {
      this.log.error(
        { err: error, cursor: this.acked, stored: this.stored },
        "could not persist the forwarder cursor; retrying at the next ack",
      );
    }
  }

  /** Writes what is pending and stops writing: the database is about to close. */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
