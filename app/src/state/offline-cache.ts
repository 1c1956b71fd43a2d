// What an offline app can still show: the last loaded chat list and the messages of every chat opened on this device
// in the last 30 days and of every pinned chat (docs/app.md "Offline", invariants OF1, OF2, OF6). Bounded: at most
// MAX_MESSAGES of a chat and MAX_BYTES in all (a chat's size is its JSON text's length); past that the chat opened
// longest ago goes first, pinned chats last. Kept in IndexedDB (the client library's IndexedDbCache, not localStorage)
// so the service worker can wipe it too: a revoked device, or a lost phone, keeps nothing readable once either learns
// of it (invariant O4). Every read is checked with zod, so a value from an older build reads as absent instead of
// breaking the app.
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
/** How long a chat opened on this device stays readable offline without being opened again (pinned: for good). */
export const KEEP_OPENED_MS = 30 * 24 * 60 * 60 * 1000;
/** The last messages kept of one chat. */
export const MAX_MESSAGES = 500;
/** All cached transcripts together, counted as the length of their JSON text. */
export const MAX_BYTES = 50 * 1024 * 1024;

const sessionsSchema = z.array(sessionSummarySchema);
const keptSchema = z.object({ id: z.string(), opened_at: z.number(), bytes: z.number() });
type Kept = z.infer<typeof keptSchema>;
const indexSchema = z.array(keptSchema);
const messagesSchema = z.array(messageSchema);

export interface OfflineCache {
  readSessions(): Promise<SessionSummary[] | undefined>;
  writeSessions(list: readonly SessionSummary[]): Promise<void>;
  /** The cached messages of a chat; undefined when it was never opened on this device (or aged out). */
  readMessages(session_id: string): Promise<Message[] | undefined>;
  /** Keeps a chat's last messages as opened now, then drops what the bounds leave out, oldest first. */
  writeMessages(session_id: string, messages: readonly Message[]): Promise<void>;
  /** The ids of the chats whose messages are kept, most recently opened first. */
  keptSessions(): Promise<string[]>;
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

export interface CacheBounds {
  now?: () => number;
  maxBytes?: number;
  maxMessages?: number;
  keepOpenedMs?: number;
}

/**
 * Which kept chats the bounds leave out: those opened before the age limit (unless pinned), then, while the total is
 * over the byte bound, the one opened longest ago (unpinned before pinned). The newest entry always stays.
 */
export function evicted(
  index: readonly Kept[],
  pinned: ReadonlySet<string>,
  now: number,
  bounds: Required<CacheBounds>,
): Set<string> {
  const out = new Set<string>();
  const byAge = [...index].sort((a, b) => a.opened_at - b.opened_at);
  for (const kept of byAge) if (!pinned.has(kept.id) && now - kept.opened_at > bounds.keepOpenedMs) out.add(kept.id);
  let total = index.reduce((sum, kept) => sum + (out.has(kept.id) ? 0 : kept.bytes), 0);
  const newest = byAge.at(-1)?.id;
  const candidates = [...byAge.filter((kept) => !pinned.has(kept.id)), ...byAge.filter((kept) => pinned.has(kept.id))];
  for (const kept of candidates) {
    if (total <= bounds.maxBytes) break;
    if (out.has(kept.id) || kept.id === newest) continue;
    out.add(kept.id);
    total -= kept.bytes;
  }
  return out;
}

function cacheOver(kv: KeyValue, options: CacheBounds = {}): OfflineCache {
  const bounds: Required<CacheBounds> = {
    now: options.now ?? Date.now,
    maxBytes: options.maxBytes ?? MAX_BYTES,
    maxMessages: options.maxMessages ?? MAX_MESSAGES,
    keepOpenedMs: options.keepOpenedMs ?? KEEP_OPENED_MS,
  };
  const readIndex = async () => {
    const parsed = indexSchema.safeParse(await kv.get("kept"));
    return parsed.success ? parsed.data : [];
  };
  // The index is read, changed and written back: one change at a time, or two chats opened together lose one.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const cache: OfflineCache = {
    async readSessions() {
      const parsed = sessionsSchema.safeParse(await kv.get("sessions"));
      return parsed.success ? parsed.data : undefined;
    },
    writeSessions: (list) => kv.set("sessions", list),
    async readMessages(session_id) {
      const parsed = messagesSchema.safeParse(await kv.get(`messages:${session_id}`));
      return parsed.success ? parsed.data : undefined;
    },
    writeMessages: (session_id, messages) =>
      serially(async () => {
        const kept = messages.slice(-bounds.maxMessages);
        const entry = { id: session_id, opened_at: bounds.now(), bytes: JSON.stringify(kept).length };
        const index = [...(await readIndex()).filter((item) => item.id !== session_id), entry];
        const pinned = new Set(((await cache.readSessions()) ?? []).filter((s) => s.pinned === true).map((s) => s.id));
        const out = evicted(index, pinned, entry.opened_at, bounds);
        for (const id of out) await kv.remove(`messages:${id}`);
        await kv.set(`messages:${session_id}`, kept);
        await kv.set(
          "kept",
          index.filter((item) => !out.has(item.id)),
        );
      }),
    async keptSessions() {
      return (await readIndex()).sort((a, b) => b.opened_at - a.opened_at).map((item) => item.id);
    },
    forgetSession: (session_id) =>
      serially(async () => {
        await kv.remove(`messages:${session_id}`);
        await kv.set(
          "kept",
          (await readIndex()).filter((item) => item.id !== session_id),
        );
        const list = await cache.readSessions();
        if (list)
          await kv.set(
            "sessions",
            list.filter((session) => session.id !== session_id),
          );
      }),
    wipe: () => serially(() => kv.clear()),
  };
  return cache;
}

export function memoryCache(bounds?: CacheBounds): OfflineCache {
  const values = new Map<string, unknown>();
  return cacheOver(
    {
      get: async (key) => structuredClone(values.get(key)),
      set: async (key, value) => void values.set(key, structuredClone(value)),
      remove: async (key) => void values.delete(key),
      clear: async () => values.clear(),
    },
    bounds,
  );
}

/**
 * Over the client library's IndexedDbCache (one cache for the app and the library): the chat list and the index of kept chats
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
