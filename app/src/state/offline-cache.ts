// What an offline app can still show: the last loaded chat list and the last messages of the ten most recently
// opened chats. Kept in IndexedDB (the client library's IndexedDbCache, not localStorage) so the service worker can wipe it too: a revoked device, or a
// lost phone, keeps nothing readable once either learns of it (docs/app.md "Offline", invariant O4). Every read is
// checked with zod, so a value from an older build reads as absent instead of breaking the app.
import { z } from "zod";
import {
  CACHE_DB_NAME,
  IndexedDbCache,
  messageSchema,
  sessionSummarySchema,
  type Message,
  type SessionSummary,
} from "../../../client/index.ts";

const STORE = "kv";
const MAX_SESSIONS = 10;
const MAX_MESSAGES = 60;

const sessionsSchema = z.array(sessionSummarySchema);
const recentSchema = z.array(z.string());
const messagesSchema = z.array(messageSchema);

export interface OfflineCache {
  readSessions(): Promise<SessionSummary[] | undefined>;
  writeSessions(list: readonly SessionSummary[]): Promise<void>;
  /** The cached messages of a chat; undefined when it was never opened on this device. */
  readMessages(session_id: string): Promise<Message[] | undefined>;
  writeMessages(session_id: string, messages: readonly Message[]): Promise<void>;
  forgetSession(session_id: string): Promise<void>;
  wipe(): Promise<void>;
}

/** A key-value view of the storage, so the bounding rules are written once for IndexedDB and for memory. */
interface KeyValue {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  remove(key: string): Promise<void>;
  clear(): Promise<void>;
}

function cacheOver(kv: KeyValue): OfflineCache {
  const recent = async () => {
    const parsed = recentSchema.safeParse(await kv.get("recent"));
    return parsed.success ? parsed.data : [];
  };
  return {
    async readSessions() {
      const parsed = sessionsSchema.safeParse(await kv.get("sessions"));
      return parsed.success ? parsed.data : undefined;
    },
    writeSessions: (list) => kv.set("sessions", list),
    async readMessages(session_id) {
      const parsed = messagesSchema.safeParse(await kv.get(`messages:${session_id}`));
      return parsed.success ? parsed.data : undefined;
    },
    async writeMessages(session_id, messages) {
      const order = [session_id, ...(await recent()).filter((id) => id !== session_id)];
      for (const dropped of order.slice(MAX_SESSIONS)) await kv.remove(`messages:${dropped}`);
      await kv.set(`messages:${session_id}`, messages.slice(-MAX_MESSAGES));
      await kv.set("recent", order.slice(0, MAX_SESSIONS));
    },
    async forgetSession(session_id) {
      await kv.remove(`messages:${session_id}`);
      await kv.set(
        "recent",
        (await recent()).filter((id) => id !== session_id),
      );
      const list = await this.readSessions();
      if (list)
        await kv.set(
          "sessions",
          list.filter((session) => session.id !== session_id),
        );
    },
    wipe: () => kv.clear(),
  };
}

export function memoryCache(): OfflineCache {
  const values = new Map<string, unknown>();
  return cacheOver({
    get: async (key) => structuredClone(values.get(key)),
    set: async (key, value) => void values.set(key, structuredClone(value)),
    remove: async (key) => void values.delete(key),
    clear: async () => values.clear(),
  });
}

/**
 * Over the client library's IndexedDbCache (one cache for the app and the library): the chat list and the recent list
 * in its `sessions` store, each chat's messages in `transcripts`. Its connection closes itself when the service worker
 * deletes the database (`versionchange`), so the next call opens a fresh one.
 */
export function indexedDbCache(factory?: IDBFactory): OfflineCache {
  const idb = factory ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  let opened: Promise<IndexedDbCache> | undefined;
  const cache = async () => {
    const current = await opened;
    if (current?.isOpen) return current;
    opened = IndexedDbCache.open(factory ? { indexedDB: factory } : {});
    opened.catch(() => (opened = undefined));
    return opened;
  };
  // A read never creates the database: a browser that was never paired (or was wiped) keeps none.
  const exists = async () => {
    if (opened || !idb || typeof idb.databases !== "function") return true;
    return (await idb.databases()).some((database) => database.name === CACHE_DB_NAME);
  };
  const place = (key: string): [string, string] =>
    key.startsWith("messages:") ? ["transcripts", key.slice(9)] : ["sessions", key];
  return cacheOver({
    get: async (key) => ((await exists()) ? (await cache()).get(...place(key)) : undefined),
    set: async (key, value) => (await cache()).put(...place(key), value),
    remove: async (key) => ((await exists()) ? (await cache()).delete(...place(key)) : undefined),
    async clear() {
      // A wipe deletes the whole database (as the service worker does), not only its records.
      if (await exists()) await (await cache()).wipe();
      opened = undefined;
    },
  });
}
