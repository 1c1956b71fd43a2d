// In-memory notification collection: the application store for tests and embedding, and the working copy of
// one session's `notifications.items` while a session change is decided. Same contract as the SQLite store
// (test/notifications/store-contract.test.ts runs one suite against both).
import type { NotificationRecord } from "../../client/wire/notification.ts";
import { isActive } from "./lifecycle.ts";
import type { TransactionalNotificationStore, ListOptions } from "./store.ts";

export class MemoryNotificationStore implements TransactionalNotificationStore {
  /** Map keeps insertion order, and replacing a value keeps its place: creation order for free. */
  private readonly records = new Map<string, NotificationRecord>();
  private readonly activeKeys = new Map<string, string>();
  /** Ids in the order they became terminal; `head` skips the pruned prefix without shifting the array. */
  private terminalOrder: string[] = [];
  private head = 0;
  private undo: Array<() => void> | undefined;
  private dirty = false;

  constructor(initial: Iterable<NotificationRecord> = []) {
    for (const record of initial) this.place(record);
    this.dirty = false;
  }

  /** True once anything was written since construction. */
  get changed(): boolean {
    return this.dirty;
  }

  transaction<T>(work: () => T): T {
    if (this.undo) return work();
    this.undo = [];
    try {
      return work();
    } catch (error) {
      for (const revert of this.undo.reverse()) revert();
      throw error;
    } finally {
      this.undo = undefined;
    }
  }

  get(id: string): NotificationRecord | undefined {
    return this.records.get(id);
  }

  activeByKey(key: string): NotificationRecord | undefined {
    const id = this.activeKeys.get(key);
    return id === undefined ? undefined : this.records.get(id);
  }

  put(record: NotificationRecord): void {
    const previous = this.records.get(record.id);
    this.undo?.push(() => this.restore(record, previous));
    this.place(record, previous);
  }

  list({ includeTerminal }: ListOptions): NotificationRecord[] {
    const all = [...this.records.values()];
    return includeTerminal ? all : all.filter(isActive);
  }

  listJson(options: ListOptions): string {
    return JSON.stringify(this.list(options));
  }

  activeForRequest(requestId: string): NotificationRecord[] {
    return this.list({ includeTerminal: false }).filter((r) => r.request_id === requestId);
  }

  activeRestartScoped(): NotificationRecord[] {
    return this.list({ includeTerminal: false }).filter((r) => r.retention.policy === "until_server_restart");
  }

  pruneTerminal(keep: number): number {
    let removed = 0;
    while (this.terminalOrder.length - this.head > keep) {
      const id = this.terminalOrder[this.head++]!;
      this.records.delete(id);
      removed++;
    }
    if (this.head > 1024 && this.head * 2 > this.terminalOrder.length) {
      this.terminalOrder = this.terminalOrder.slice(this.head);
      this.head = 0;
    }
    if (removed > 0) this.dirty = true;
    return removed;
  }

  private place(record: NotificationRecord, previous = this.records.get(record.id)): void {
    this.records.set(record.id, record);
    this.dirty = true;
    if (isActive(record)) {
      this.activeKeys.set(record.key, record.id);
      return;
    }
    if (this.activeKeys.get(record.key) === record.id) this.activeKeys.delete(record.key);
    if (!previous || isActive(previous)) this.terminalOrder.push(record.id);
  }

  private restore(record: NotificationRecord, previous: NotificationRecord | undefined): void {
    if (this.activeKeys.get(record.key) === record.id) this.activeKeys.delete(record.key);
    if (!isActive(record) && (!previous || isActive(previous)) && this.terminalOrder.at(-1) === record.id)
      this.terminalOrder.pop();
    if (previous) {
      this.records.set(previous.id, previous);
      if (isActive(previous)) this.activeKeys.set(previous.key, previous.id);
    } else {
      this.records.delete(record.id);
    }
  }
}
