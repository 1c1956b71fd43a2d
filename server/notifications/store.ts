// The storage contract every notification store meets: the durable SQLite store and the memory store
// for application notifications, and the per-session working copy kept in session metadata. The service reads
// and writes only through it, inside one atomic unit (TransactionalNotificationStore.transaction, or one
// SessionService.change), so a key never has two active occurrences and no update is lost.
import type { NotificationRecord } from "../../client/wire/notification.ts";

export interface ListOptions {
  includeTerminal: boolean;
}

export interface NotificationStore {
  get(id: string): NotificationRecord | undefined;
  /** The key's active (non-terminal) occurrence; there is at most one. */
  activeByKey(key: string): NotificationRecord | undefined;
  /** Inserts a new record or replaces the one with the same id. */
  put(record: NotificationRecord): void;
  /** Active records in creation order; with includeTerminal, terminal ones too. */
  list(options: ListOptions): NotificationRecord[];
  /**
   * The same list as a JSON array (text, or its UTF-8 bytes): lets a route answer without parsing and
   * re-serializing records.
   */
  listJson(options: ListOptions): string | Uint8Array;
  /** Active records tied to a request (candidates for until_request_complete). */
  activeForRequest(requestId: string): NotificationRecord[];
  /** Active records whose retention is until_server_restart. */
  activeRestartScoped(): NotificationRecord[];
  /**
   * Deletes the oldest terminal records (in the order they became terminal) until at most `keep` remain.
   * Active records are never touched, and the cost must not depend on how many there are.
   */
  pruneTerminal(keep: number): number;
}

export interface TransactionalNotificationStore extends NotificationStore {
  /** Runs `work` atomically: every read and write in it sees and leaves one consistent state. */
  transaction<T>(work: () => T): T;
}
