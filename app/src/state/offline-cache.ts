// What an offline app can still show: the last loaded chat list and the last messages of the ten most recently
// opened chats. Kept in IndexedDB (not localStorage) so the service worker can wipe it too: a revoked device, or a
// lost phone, keeps nothing readable once either learns of it (docs/app.md "Offline", invariant O4). Every read is
// checked with zod, so a value from an older build reads as absent instead of breaking the app.
import { z } from "zod";
import { OFFLINE_DB } from "./offline-db-name.ts";
import { messageSchema, sessionSummarySchema, type Message, type SessionSummary } from "../../../client/index.ts";

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
      await kv.set("recent", (await recent()).filter((id) => id !== session_id));
      const list = await this.readSessions();
      if (list) await kv.set("sessions", list.filter((session) => session.id !== session_id));
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

export function indexedDbCache(factory: IDBFactory): OfflineCache {
  let opened: Promise<IDBDatabase> | undefined;
  const database = () => {
    opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open(OFFLINE_DB, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => {
        const db = request.result;
        // The service worker deletes the database on a wipe: let it, and open afresh next time.
        db.onversionchange = () => {
          db.close();
          opened = undefined;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error("the offline cache is blocked by another tab"));
    });
    return opened;
  };
  const run = async <T,>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const db = await database();
    return new Promise<T>((resolve, reject) => {
      const request = work(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  };
  return cacheOver({
    get: (key) => run("readonly", (store) => store.get(key)),
    set: async (key, value) => void (await run("readwrite", (store) => store.put(value, key))),
    remove: async (key) => void (await run("readwrite", (store) => store.delete(key))),
    clear: async () => void (await run("readwrite", (store) => store.clear())),
  });
}
