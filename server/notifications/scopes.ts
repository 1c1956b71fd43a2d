// The two places notifications live, behind one interface the service mutates through:
// - application scope: a TransactionalNotificationStore (SQLite, or memory for tests and embedding);
// - session scope: the session metadata under `notifications.items`, saved as a new immutable session version
//   through SessionService.change, so the mutation, its events and the checkpoint commit together.
// Both queue the events a mutation emits and hand them to the best-effort publisher only once the mutation
// has succeeded, inside its transaction.
import { notificationRecordSchema, type NotificationRecord } from "../../client/wire/notification.ts";
import type { Session } from "../../client/wire/index.ts";
import type { Transactor } from "../db/transactor.ts";
import type { PublishInput } from "../events/event-store.ts";
import type { SessionService } from "../sessions/session-service.ts";
import type { Emit } from "./events.ts";
import { MemoryNotificationStore } from "./memory-store.ts";
import type { NotificationScope } from "./records.ts";
import type { TransactionalNotificationStore, NotificationStore } from "./store.ts";

export interface ScopeStore {
  readonly scope: NotificationScope;
  /** Runs `work` atomically; events it emits are published (best effort) only if it succeeds. */
  mutate<T>(work: (collection: NotificationStore, emit: Emit) => T): T;
  read<T>(work: (collection: NotificationStore) => T): T;
}

export class ApplicationScopeStore implements ScopeStore {
  readonly scope = { kind: "application" } as const;

  constructor(
    private readonly store: TransactionalNotificationStore,
    private readonly publish: Emit,
    private readonly historyLimit: number,
  ) {}

  mutate<T>(work: (collection: NotificationStore, emit: Emit) => T): T {
    return this.store.transaction(() => {
      const queued: PublishInput[] = [];
      const result = work(this.store, (event) => queued.push(event));
      if (queued.length > 0) this.store.pruneTerminal(this.historyLimit);
      for (const event of queued) this.publish(event);
      return result;
    });
  }

  read<T>(work: (collection: NotificationStore) => T): T {
    return work(this.store);
  }
}

export class SessionScopeStore implements ScopeStore {
  readonly scope: NotificationScope;

  constructor(
    private readonly sessions: SessionService,
    private readonly transactor: Transactor,
    private readonly sessionId: string,
    private readonly publish: Emit,
    private readonly historyLimit: number,
  ) {
    this.scope = { kind: "session", sessionId };
  }

  read<T>(work: (collection: NotificationStore) => T): T {
    return work(loadItems(this.sessions.get(this.sessionId)).collection);
  }

  mutate<T>(work: (collection: NotificationStore, emit: Emit) => T): T {
    // The read, the decision and SessionService.change share one write transaction, so concurrent producers
    // on this session serialize and none of their updates is lost.
    return this.transactor.run(() => {
      const { collection, malformed } = loadItems(this.sessions.get(this.sessionId));
      const queued: PublishInput[] = [];
      const result = collection.transaction(() => work(collection, (event) => queued.push(event)));
      if (!collection.changed) return result;
      collection.pruneTerminal(this.historyLimit);
      const items = [...collection.list({ includeTerminal: true }), ...malformed];
      this.sessions.change(this.sessionId, (current) => ({
        next: { ...current, metadata: withItems(current.metadata, items) },
        // Published here, after the new version is saved and before SessionService's checkpoint marker, so
        // the session cursor lands after them (a snapshot never replays its own notification events).
        events: () => {
          for (const event of queued) this.publish(event);
          return [];
        },
        result: () => undefined,
      }));
      return result;
    });
  }
}

/** Parses `metadata.notifications.items`; malformed items are kept aside untouched and written back. */
function loadItems(session: Session): { collection: MemoryNotificationStore; malformed: unknown[] } {
  const holder = session.metadata["notifications"];
  const items =
    holder && typeof holder === "object" && Array.isArray((holder as { items?: unknown }).items)
      ? (holder as { items: unknown[] }).items
      : [];
  const records: NotificationRecord[] = [];
  const malformed: unknown[] = [];
  for (const item of items) {
    const parsed = notificationRecordSchema.safeParse(item);
    if (parsed.success) records.push(parsed.data);
    else malformed.push(item);
  }
  return { collection: new MemoryNotificationStore(records), malformed };
}

function withItems(metadata: Session["metadata"], items: unknown[]): Session["metadata"] {
  const holder = metadata["notifications"];
  const rest = holder && typeof holder === "object" && !Array.isArray(holder) ? holder : {};
  return { ...metadata, notifications: { ...rest, items } };
}
