// The event cursor kept between runs (docs/client.md "Resuming from the device's cache"). An app that keeps what it
// shows on the device (the chat list) gives the client a CursorStore beside that cache; the client saves there the id
// of the last event its listeners heard, and the next run starts reading after it instead of at the log's head, so
// the app shows its cache and applies only what changed while it was closed.
//
// A saved cursor is a promise that the app's cache reflects every event up to it. So the client saves only while
// that holds: from a start that resumed from a saved cursor, or from the moment the app says its cache is in step
// again (`keepFromNow`, after it reloaded its snapshots); a start without a saved cursor, or a reset (410), stops the
// saving until then. Each save runs after the listeners heard the events it covers (what they wrote to the cache
// is queued before it), one save at a time: the newest cursor is saved once the one in flight is done.
import { z } from "zod";
import { eventIdSchema } from "../wire/event-id.ts";

export const savedCursorSchema = z.object({
  /** `server_id/device_id` (connectionIdOf): a cursor of another pairing, person or server is never used. */
  connection_id: z.string().min(1),
  event_id: eventIdSchema,
  /** The store the id belongs to (GET /events `epoch`): a replaced store answers 410 instead of skipping events. */
  epoch: z.string().min(1),
});

export type SavedCursor = z.infer<typeof savedCursorSchema>;

/** Where the cursor is kept: beside the app's cache, so that wiping the cache (a revoked device) wipes it too. */
export interface CursorStore {
  /** What an earlier run saved (validated by the client), or undefined. */
  load(): Promise<unknown>;
  /** Keeps the cursor; it must land after whatever the listeners of its events wrote to the same cache. */
  save(saved: SavedCursor): Promise<void>;
  /** Forgets it (a revoked device). */
  forget(): Promise<void>;
}

export interface CursorKeeperDeps {
  store: CursorStore | undefined;
  connectionId: string;
  /** The cursor and epoch now; undefined before the first read. */
  current(): { event_id: string; epoch: string } | undefined;
  report(message: string, detail: unknown): void;
}

export class CursorKeeper {
  private keeping = false;
  private saving = false;
  private dirty = false;

  constructor(private readonly deps: CursorKeeperDeps) {}

  /** Whether a store was given (otherwise nothing is loaded or saved). */
  get enabled(): boolean {
    return this.deps.store !== undefined;
  }

  /** This pairing's saved cursor, checked; undefined when there is none, it is unreadable or another pairing's. */
  async load(): Promise<SavedCursor | undefined> {
    const { store, connectionId } = this.deps;
    if (!store) return undefined;
    try {
      const parsed = savedCursorSchema.safeParse(await store.load());
      if (!parsed.success) return undefined;
      return parsed.data.connection_id === connectionId ? parsed.data : undefined;
    } catch (error) {
      this.deps.report("the saved event cursor could not be read; reading from the head", error);
      return undefined;
    }
  }

  /** Started from the saved cursor: the app's cache reflects it, so saving goes on from there (nothing new yet). */
  resumed(): void {
    this.keeping = true;
  }

  /** The app's cache reflects every event delivered so far: save the cursor from now on. */
  keepFromNow(): void {
    this.keeping = true;
    this.moved();
  }

  /** The app's cache no longer reflects the delivered events (a reset): save nothing until keepFromNow. */
  pause(): void {
    this.keeping = false;
  }

  /** The cursor moved (after the listeners heard the events up to it). */
  moved(): void {
    if (!this.deps.store || !this.keeping) return;
    if (this.saving) {
      this.dirty = true;
      return;
    }
    void this.flush(this.deps.store);
  }

  async forget(): Promise<void> {
    this.keeping = false;
    await this.deps.store?.forget();
  }

  private async flush(store: CursorStore): Promise<void> {
    this.saving = true;
    try {
      do {
        this.dirty = false;
        const current = this.deps.current();
        if (!current) continue;
        await store
          .save({ connection_id: this.deps.connectionId, ...current })
          .catch((error: unknown) => this.deps.report("saving the event cursor failed", error));
      } while (this.dirty && this.keeping);
    } finally {
      this.saving = false;
    }
  }
}
