// A small cache in IndexedDB for what an app shows offline: the chat list and each chat's transcript (docs/client.md
// "Offline cache"). IndexedDB rather than localStorage because a service worker can reach it (it has no
// localStorage): the page and the worker both wipe it the moment either learns the device was revoked, and a lost
// phone keeps nothing readable. One database, one object store per kind of record, string keys, values stored by
// structured clone (plain JSON-like objects).
//
// The database lets go whenever someone else wants it gone: every open connection closes itself on `versionchange`,
// so `wipe()` from another tab or `indexedDB.deleteDatabase(CACHE_DB_NAME)` in the service worker is never blocked.

/** The database's name: a service worker wipes the cache with `indexedDB.deleteDatabase(CACHE_DB_NAME)`. */
export const CACHE_DB_NAME = "chat-relay-cache";

/** The stores an app gets by default: `sessions` (the chat list) and `transcripts` (one record per session id). */
export const DEFAULT_CACHE_STORES = ["sessions", "transcripts"] as const;

export interface CacheOptions {
  /** Database name (default CACHE_DB_NAME). */
  name?: string;
  /** Object stores (default DEFAULT_CACHE_STORES); adding one later upgrades the database in place. */
  stores?: readonly string[];
  /** Default `globalThis.indexedDB` (a page or a service worker). */
  indexedDB?: IDBFactory;
}

export class CacheUnavailableError extends Error {
  override readonly name = "CacheUnavailableError";
}

export class IndexedDbCache {
  private constructor(
    private db: IDBDatabase | undefined,
    private readonly name: string,
    private readonly factory: IDBFactory,
  ) {}

  /** Opens (creating or upgrading) the cache. Rejects with CacheUnavailableError where IndexedDB is missing or refused. */
  static async open(options: CacheOptions = {}): Promise<IndexedDbCache> {
    const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    if (!factory) throw new CacheUnavailableError("IndexedDB is not available here");
    const name = options.name ?? CACHE_DB_NAME;
    const stores = options.stores ?? DEFAULT_CACHE_STORES;
    let db = await openDb(factory, name, undefined, stores);
    const missing = stores.filter((store) => !db.objectStoreNames.contains(store));
    if (missing.length > 0) {
      const version = db.version + 1;
      db.close();
      db = await openDb(factory, name, version, stores);
    }
    const cache = new IndexedDbCache(db, name, factory);
    db.onversionchange = () => cache.close();
    return cache;
  }

  /** Whether this connection is still open (it closes itself when another wipes or upgrades the database). */
  get isOpen(): boolean {
    return this.db !== undefined;
  }

  async get<T = unknown>(store: string, key: string): Promise<T | undefined> {
    return (await this.run(store, "readonly", (s) => s.get(key))) as T | undefined;
  }

  async put(store: string, key: string, value: unknown): Promise<void> {
    await this.run(store, "readwrite", (s) => s.put(value, key));
  }

  async delete(store: string, key: string): Promise<void> {
    await this.run(store, "readwrite", (s) => s.delete(key));
  }

  async keys(store: string): Promise<string[]> {
    return ((await this.run(store, "readonly", (s) => s.getAllKeys())) as IDBValidKey[]).map(String);
  }

  async clear(store: string): Promise<void> {
    await this.run(store, "readwrite", (s) => s.clear());
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }

  /** Closes this connection and deletes the whole database (every store). Later calls reject. */
  async wipe(): Promise<void> {
    this.close();
    await wipeCache({ name: this.name, indexedDB: this.factory });
  }

  private run(store: string, mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest): Promise<unknown> {
    const db = this.db;
    if (!db) return Promise.reject(new CacheUnavailableError("the cache is closed (wiped or closed)"));
    return new Promise((resolve, reject) => {
      let request: IDBRequest;
      try {
        const transaction = db.transaction(store, mode);
        request = work(transaction.objectStore(store));
        // Resolved when the transaction commits, so a put is durable once awaited.
        transaction.oncomplete = () => resolve(request.result);
        transaction.onerror = () => reject(transaction.error ?? request.error);
        transaction.onabort = () => reject(transaction.error ?? new CacheUnavailableError("transaction aborted"));
      } catch (error) {
        reject(error);
      }
    });
  }
}

/**
 * Deletes the cache database, whether or not a connection is open here (open ones close themselves). For a page
 * that never opened it, and for the service worker (which may also call `indexedDB.deleteDatabase(CACHE_DB_NAME)`).
 */
export function wipeCache(options: Pick<CacheOptions, "name" | "indexedDB"> = {}): Promise<void> {
  const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (!factory) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const request = factory.deleteDatabase(options.name ?? CACHE_DB_NAME);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
  });
}

function openDb(
  factory: IDBFactory,
  name: string,
  version: number | undefined,
  stores: readonly string[],
): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = version === undefined ? factory.open(name) : factory.open(name, version);
    request.onupgradeneeded = () => {
      const db = request.result;
      for (const store of stores) if (!db.objectStoreNames.contains(store)) db.createObjectStore(store);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new CacheUnavailableError(`cannot open ${name}`));
  });
}
