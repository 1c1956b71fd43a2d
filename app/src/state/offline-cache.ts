// What an offline app can still show: the last loaded chat list and the messages of every chat opened on this device
// in the last 30 days and of every pinned chat, with the images they carry (docs/app.md "Offline", invariants OF1,
// OF2, OF6, OF7). Bounded: at most MAX_MESSAGES of a chat and a byte bound in all (a chat's size is its JSON text's
// length plus its kept images' bytes; the bound is the server's `offline.max_mb` once the app has learned it, else
// MAX_BYTES); past that the chat opened longest ago goes first, pinned chats last. Kept in IndexedDB (the client
// library's IndexedDbCache, not localStorage) so the service worker can wipe it too: a revoked device, or a lost
// phone, keeps nothing readable once either learns of it (invariant O4). Every read is checked with zod, so a value
// from an older build reads as absent instead of breaking the app; the list's head, read before the first render, is
// checked by its format stamp instead (list-head.ts).
import { z } from "zod";
import {
  messageSchema,
  sessionSummarySchema,
  type Message,
  type SavedCursor,
  type SessionSummary,
} from "../../../client/index.ts";
import { HEAD_KEY } from "../early-head.ts";
import { ASSETS_STORE, offlineDatabase } from "../offline/offline-stores.ts";
import { chatsOfHead, headRecord } from "./list-head.ts";
import { listHead } from "./list-order.ts";
import { LEGACY_KEY, listRecords } from "./list-records.ts";

/** How long a chat opened on this device stays readable offline without being opened again (pinned: for good). */
export const KEEP_OPENED_MS = 30 * 24 * 60 * 60 * 1000;
/** The last messages kept of one chat. */
export const MAX_MESSAGES = 500;
/** All cached transcripts together, counted as the length of their JSON text. */
export const MAX_BYTES = 50 * 1024 * 1024;

const sessionsSchema = z.array(sessionSummarySchema);
const keptAssetSchema = z.object({ id: z.string(), bytes: z.number() });
const keptSchema = z.object({
  id: z.string(),
  opened_at: z.number(),
  bytes: z.number(),
  /** The chat's images kept with it (their bytes count in the chat's size). */
  assets: z.array(keptAssetSchema).default([]),
});
type Kept = z.infer<typeof keptSchema>;
const indexSchema = z.array(keptSchema);
const messagesSchema = z.array(messageSchema);
const pinnedIdsSchema = z.array(z.string());

/**
 * The ids of the list's pinned chats, kept beside the list by every write of it: the bound's rule needs them at each
 * chat written, and reading and checking the whole list there (10,000 chats) took 50-110 ms of a phone's main thread
 * (CPU throttled 4x) at every chat or image kept (OF10).
 */
const PINNED_KEY = "sessions_pinned";

export interface OfflineCache {
  /** The whole cached list, read one record a task (list-records.ts); undefined when none is kept or a record fails. */
  readSessions(): Promise<SessionSummary[] | undefined>;
  /**
   * The list's first HEAD_CHATS chats in its order (pinned, then newest activity; archived left out), kept with every
   * write of the list: a start reads 50 chats before its first render instead of ten thousand (by their format stamp,
   * not zod: list-head.ts).
   */
  readSessionsHead(): Promise<SessionSummary[] | undefined>;
  /** Keeps the list and its head (`head`: the list's first chats in order when the caller has them sorted already). */
  writeSessions(list: readonly SessionSummary[], head?: readonly SessionSummary[]): Promise<void>;
  /**
   * The event cursor the kept list reflects (the client library's CursorStore, docs/app.md "Start from the cache"):
   * written after every list write queued before it, wiped with the list.
   */
  readCursor(): Promise<unknown>;
  writeCursor(saved: SavedCursor): Promise<void>;
  forgetCursor(): Promise<void>;
  /** The cached messages of a chat; undefined when it was never opened on this device (or aged out). */
  readMessages(session_id: string): Promise<Message[] | undefined>;
  /** Keeps a chat's last messages as opened now, then drops what the bounds leave out, oldest first. */
  writeMessages(session_id: string, messages: readonly Message[]): Promise<void>;
  /** The ids of the chats whose messages are kept, most recently opened first. */
  keptSessions(): Promise<string[]>;
  /** Each kept chat with when its messages were last written (a change of the time is a change of its messages). */
  keptChats(): Promise<Array<{ id: string; opened_at: number }>>;
  /** A kept chat's image; undefined when it was not kept (or its chat went). */
  readAsset(session_id: string, asset_id: string): Promise<Blob | undefined>;
  /** The ids of a kept chat's images. */
  keptAssets(session_id: string): Promise<string[]>;
  /**
   * Keeps an image of a kept chat, counted in the byte bound (other chats go, oldest first, to make room); false, and
   * nothing kept, when its chat is not kept or the image does not fit beside the chat's own messages.
   */
  writeAsset(session_id: string, asset_id: string, image: Blob): Promise<boolean>;
  /** The byte bound from now on (the server's `offline.max_mb`), remembered with the cache. */
  setMaxBytes(bytes: number): Promise<void>;
  forgetSession(session_id: string): Promise<void>;
  wipe(): Promise<void>;
}

/** A key-value view of the storage, so the bounding rules are written once for IndexedDB and for memory. */
export interface KeyValue {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  remove(key: string): Promise<void>;
  /** The keys that start with `prefix`. */
  keys(prefix: string): Promise<string[]>;
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
 * over the byte bound, the one opened longest ago (unpinned before pinned). `keep` (the chat just written; by default
 * the newest entry) always stays.
 */
export function evicted(
  index: readonly Kept[],
  pinned: ReadonlySet<string>,
  now: number,
  bounds: Pick<Required<CacheBounds>, "maxBytes" | "keepOpenedMs">,
  keep?: string,
): Set<string> {
  const out = new Set<string>();
  const byAge = [...index].sort((a, b) => a.opened_at - b.opened_at);
  const newest = keep ?? byAge.at(-1)?.id;
  for (const kept of byAge)
    if (!pinned.has(kept.id) && kept.id !== newest && now - kept.opened_at > bounds.keepOpenedMs) out.add(kept.id);
  let total = index.reduce((sum, kept) => sum + (out.has(kept.id) ? 0 : sizeOf(kept)), 0);
  const candidates = [...byAge.filter((kept) => !pinned.has(kept.id)), ...byAge.filter((kept) => pinned.has(kept.id))];
  for (const kept of candidates) {
    if (total <= bounds.maxBytes) break;
    if (out.has(kept.id) || kept.id === newest) continue;
    out.add(kept.id);
    total -= sizeOf(kept);
  }
  return out;
}

/** A kept chat's bytes: its messages' JSON text and its images. */
export function sizeOf(kept: Pick<Kept, "bytes" | "assets">): number {
  return kept.assets.reduce((sum, asset) => sum + asset.bytes, kept.bytes);
}

/** One change of the kept chats at a time: the index is read, changed and written back, or two chats opened together lose one. */
function serialQueue() {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
}

const assetKey = (session_id: string, asset_id: string) => `asset:${session_id}/${asset_id}`;

/** The kept chats' index and the byte bound in force, over the key-value store. */
function keptIndex(kv: KeyValue, bounds: Required<CacheBounds>) {
  const read = async () => {
    const parsed = indexSchema.safeParse(await kv.get("kept"));
    return parsed.success ? parsed.data : [];
  };
  const maxBytes = async () => {
    const parsed = z
      .number()
      .int()
      .positive()
      .safeParse(await kv.get("max_bytes"));
    return parsed.success ? parsed.data : bounds.maxBytes;
  };
  const pinned = async () => {
    const ids = pinnedIdsSchema.safeParse(await kv.get(PINNED_KEY));
    if (ids.success) return new Set(ids.data);
    // A list cached by a build that did not keep the ids beside it: read from the list itself, once more.
    const parsed = sessionsSchema.safeParse(await kv.get(LEGACY_KEY));
    return new Set((parsed.success ? parsed.data : []).filter((s) => s.pinned === true).map((s) => s.id));
  };
  /** Drops what the bounds leave out (`entry` is the chat just written, never dropped) and writes the index back. */
  const settle = async (index: readonly Kept[], entry: Kept) => {
    const limits = { maxBytes: await maxBytes(), keepOpenedMs: bounds.keepOpenedMs };
    const out = evicted(index, await pinned(), bounds.now(), limits, entry.id);
    for (const kept of index.filter((item) => out.has(item.id))) await removeChat(kv, kept);
    await kv.set(
      "kept",
      index.filter((item) => !out.has(item.id)),
    );
  };
  return { read, maxBytes, settle };
}

/**
 * The event cursor beside the list, in the one queue with the list's writes (`serially`): a cursor saved after a
 * change of the list lands after it.
 */
function cursorRecord(
  kv: KeyValue,
  serially: <T>(work: () => Promise<T>) => Promise<T>,
): Pick<OfflineCache, "readCursor" | "writeCursor" | "forgetCursor"> {
  return {
    readCursor: () => kv.get("event_cursor"),
    writeCursor: (saved) => serially(() => kv.set("event_cursor", saved)),
    forgetCursor: () => serially(() => kv.remove("event_cursor")),
  };
}

/** The list in its records (list-records.ts), then the pinned chats' ids and the head beside it. */
async function writeList(
  kv: KeyValue,
  records: ReturnType<typeof listRecords>,
  list: readonly SessionSummary[],
  head?: readonly SessionSummary[],
): Promise<void> {
  await records.write(list);
  await kv.set(
    PINNED_KEY,
    list.filter((session) => session.pinned === true).map((session) => session.id),
  );
  await kv.set(HEAD_KEY, headRecord(head ?? listHead(list)));
}

async function removeChat(kv: KeyValue, kept: Kept): Promise<void> {
  await kv.remove(`messages:${kept.id}`);
  for (const asset of kept.assets) await kv.remove(assetKey(kept.id, asset.id));
}

/** The cache's rules over any key-value store (IndexedDB and memory below; the tests count a store's reads). */
export function cacheOver(kv: KeyValue, options: CacheBounds = {}): OfflineCache {
  const bounds: Required<CacheBounds> = {
    now: options.now ?? Date.now,
    maxBytes: options.maxBytes ?? MAX_BYTES,
    maxMessages: options.maxMessages ?? MAX_MESSAGES,
    keepOpenedMs: options.keepOpenedMs ?? KEEP_OPENED_MS,
  };
  const index = keptIndex(kv, bounds);
  const serially = serialQueue();
  const records = listRecords(kv, undefined, bounds.now);
  const cache: OfflineCache = {
    // In the queue with the writes: a write removes the records its manifest no longer names, which a read begun
    // before it (one record a task) may not have read yet.
    readSessions: () => serially(() => records.read()),
    // Not checked with zod: read before the first render, its format stamp stands for the check (list-head.ts, SU9).
    readSessionsHead: async () => chatsOfHead(await kv.get(HEAD_KEY)),
    writeSessions: (list, head) => serially(() => writeList(kv, records, list, head)),
    ...cursorRecord(kv, serially),
    async readMessages(session_id) {
      const parsed = messagesSchema.safeParse(await kv.get(`messages:${session_id}`));
      return parsed.success ? parsed.data : undefined;
    },
    writeMessages: (session_id, messages) =>
      serially(async () => {
        const kept = messages.slice(-bounds.maxMessages);
        const before = await index.read();
        const assets = before.find((item) => item.id === session_id)?.assets ?? [];
        const entry = { id: session_id, opened_at: bounds.now(), bytes: JSON.stringify(kept).length, assets };
        await kv.set(`messages:${session_id}`, kept);
        await index.settle([...before.filter((item) => item.id !== session_id), entry], entry);
      }),
    async keptSessions() {
      return (await cache.keptChats()).map((item) => item.id);
    },
    async keptChats() {
      const sorted = (await index.read()).sort((a, b) => b.opened_at - a.opened_at);
      return sorted.map(({ id, opened_at }) => ({ id, opened_at }));
    },
    async readAsset(session_id, asset_id) {
      const value = await kv.get(assetKey(session_id, asset_id));
      return value instanceof Blob ? value : undefined;
    },
    async keptAssets(session_id) {
      return ((await index.read()).find((item) => item.id === session_id)?.assets ?? []).map((asset) => asset.id);
    },
    writeAsset: (session_id, asset_id, image) =>
      serially(async () => {
        const before = await index.read();
        const chat = before.find((item) => item.id === session_id);
        if (!chat || chat.assets.some((asset) => asset.id === asset_id)) return chat !== undefined;
        const entry = { ...chat, assets: [...chat.assets, { id: asset_id, bytes: image.size }] };
        // The chat itself is never dropped to make room for its own image: an image that cannot fit beside its
        // messages is not kept.
        if (sizeOf(entry) > (await index.maxBytes())) return false;
        await kv.set(assetKey(session_id, asset_id), image);
        await index.settle([...before.filter((item) => item.id !== session_id), entry], entry);
        return true;
      }),
    setMaxBytes: (bytes) => serially(() => kv.set("max_bytes", bytes)),
    forgetSession: (session_id) =>
      serially(async () => {
        const before = await index.read();
        const gone = before.find((item) => item.id === session_id);
        await removeChat(kv, gone ?? { id: session_id, opened_at: 0, bytes: 0, assets: [] });
        await kv.set(
          "kept",
          before.filter((item) => item.id !== session_id),
        );
        const list = (await records.read())?.filter((session) => session.id !== session_id);
        if (list) await writeList(kv, records, list);
      }),
    wipe: () => serially(() => kv.clear()),
  };
  return cache;
}

/** `earlyHead`: a read of the list's head begun before (as indexedDbCache's; the tests give one). */
export function memoryCache(bounds?: CacheBounds, earlyHead?: Promise<unknown>): OfflineCache {
  const values = new Map<string, unknown>();
  return cacheOver(
    withEarlyHead(
      {
        // A Blob is immutable: kept as it is (an image), everything else as a copy, as IndexedDB would.
        get: async (key) => (values.get(key) instanceof Blob ? values.get(key) : structuredClone(values.get(key))),
        set: async (key, value) => void values.set(key, value instanceof Blob ? value : structuredClone(value)),
        remove: async (key) => void values.delete(key),
        keys: async (prefix) => [...values.keys()].filter((key) => key.startsWith(prefix)),
        clear: async () => values.clear(),
      },
      earlyHead,
    ),
    bounds,
  );
}

/**
 * Over the client library's IndexedDbCache (one cache for the app and the library): the chat list's records and their
 * manifest, the index of kept chats and the byte bound in its `sessions` store, each chat's messages in `transcripts`, its images (Blobs) in
 * `assets`. Its connection closes itself when the service worker
 * deletes the database (`versionchange`), so the next call opens a fresh one.
 */
export function indexedDbCache(factory?: IDBFactory, earlyHead?: Promise<unknown>): OfflineCache {
  const database = offlineDatabase(factory);
  const cache = database.open;
  // A read never creates the database: a browser that was never paired (or was wiped) keeps none.
  const exists = database.exists;
  const place = (key: string): [string, string] =>
    key.startsWith("messages:")
      ? ["transcripts", key.slice(9)]
      : key.startsWith("asset:")
        ? [ASSETS_STORE, key.slice(6)]
        : ["sessions", key];
  const kv: KeyValue = {
    get: async (key) => ((await exists()) ? (await cache()).get(...place(key)) : undefined),
    set: async (key, value) => (await cache()).put(...place(key), value),
    remove: async (key) => ((await exists()) ? (await cache()).delete(...place(key)) : undefined),
    async keys(prefix) {
      if (!(await exists())) return [];
      const [store, within] = place(prefix);
      const storePrefix = prefix.slice(0, prefix.length - within.length);
      const keys = await (await cache()).keys(store);
      return keys.filter((key) => key.startsWith(within)).map((key) => storePrefix + key);
    },
    async clear() {
      // A wipe deletes the whole database (as the service worker does), not only its records.
      if (await exists()) await (await cache()).wipe();
      database.forget();
    },
  };
  return cacheOver(withEarlyHead(kv, earlyHead));
}

/**
 * The list's head as read while the modules loaded (early-head.ts, SU7): the first read of the head takes it instead
 * of reading again (then checked as every read of the head); anything written, removed or wiped before that drops it,
 * stale. Undefined (no database, no record, a failure) reads the store as usual.
 */
function withEarlyHead(kv: KeyValue, earlyHead: Promise<unknown> | undefined): KeyValue {
  let early = earlyHead;
  const drop = () => void (early = undefined);
  return {
    async get(key) {
      const taken = key === HEAD_KEY ? early : undefined;
      if (taken) drop();
      return (await taken) ?? kv.get(key);
    },
    set: (key, value) => (drop(), kv.set(key, value)),
    remove: (key) => (drop(), kv.remove(key)),
    keys: (prefix) => kv.keys(prefix),
    clear: () => (drop(), kv.clear()),
  };
}
