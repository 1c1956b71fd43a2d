// The object stores of the offline cache's one IndexedDB database (the client library's IndexedDbCache): the chat
// list and the index of kept chats (`sessions`), each kept chat's messages (`transcripts`), the outbox's waiting
// messages (`outbox`) and the kept chats' images (`assets`). Every opener names all of them, so whichever opens the
// database first creates every store and no opener upgrades it under another's open connection.
import { CACHE_DB_NAME, DEFAULT_CACHE_STORES, IndexedDbCache } from "../../../client/index.ts";

export const OUTBOX_STORE = "outbox";
export const ASSETS_STORE = "assets";
export const OFFLINE_STORES = [...DEFAULT_CACHE_STORES, OUTBOX_STORE, ASSETS_STORE] as const;

/**
 * The database as every part of the offline app opens it. Its connection closes itself when the service worker
 * deletes the database (`versionchange`), so `open` opens a fresh one then; `exists` lets a read leave a database that
 * was never made (a browser never paired, or wiped) unmade; `forget` drops the connection after a wipe.
 */
export function offlineDatabase(factory?: IDBFactory) {
  const idb = factory ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  let opened: Promise<IndexedDbCache> | undefined;
  return {
    async open(): Promise<IndexedDbCache> {
      const current = await opened;
      if (current?.isOpen) return current;
      opened = IndexedDbCache.open({ stores: OFFLINE_STORES, ...(factory ? { indexedDB: factory } : {}) });
      opened.catch(() => (opened = undefined));
      return opened;
    },
    async exists(): Promise<boolean> {
      if (opened || !idb || typeof idb.databases !== "function") return true;
      return (await idb.databases()).some((database) => database.name === CACHE_DB_NAME);
    },
    forget(): void {
      opened = undefined;
    },
  };
}
