// Reads the app's offline database (`chat-relay-cache`: the chat list, transcripts, images and the outbox, docs/app.md
// "Offline") from inside a page, without creating it: a wiped or never-made database reads as empty.
import type { Page } from "playwright-core";

/** Every key of every store, as `store:key`; [] when the database does not exist. */
export function offlineCacheKeys(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const databases = await indexedDB.databases();
    if (!databases.some((entry) => entry.name === "chat-relay-cache")) return [];
    return new Promise<string[]>((resolve, reject) => {
      const open = indexedDB.open("chat-relay-cache");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const stores = Array.from({ length: db.objectStoreNames.length }, (_, i) => db.objectStoreNames.item(i)!);
        if (stores.length === 0) return (db.close(), resolve([]));
        const transaction = db.transaction(stores);
        const keys: string[] = [];
        for (const store of stores) {
          const request = transaction.objectStore(store).getAllKeys();
          request.onsuccess = () => keys.push(...request.result.map((key) => `${store}:${String(key)}`));
        }
        transaction.oncomplete = () => (db.close(), resolve(keys));
        transaction.onerror = () => reject(transaction.error);
      };
    });
  });
}

/** The records of one store (the outbox's waiting messages, say); [] when the database or the store is missing. */
export function offlineRecords<T>(page: Page, store: string): Promise<T[]> {
  return page.evaluate(async (name) => {
    const databases = await indexedDB.databases();
    if (!databases.some((entry) => entry.name === "chat-relay-cache")) return [];
    return new Promise<never[]>((resolve, reject) => {
      const open = indexedDB.open("chat-relay-cache");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains(name)) return (db.close(), resolve([]));
        const request = db.transaction(name).objectStore(name).getAll();
        request.onsuccess = () => (db.close(), resolve(request.result as never[]));
        request.onerror = () => (db.close(), reject(request.error));
      };
    });
  }, store);
}

/** The keys of one store, in the order the database gives them; [] when the database or the store is missing. */
export async function offlineStoreKeys(page: Page, store: string): Promise<string[]> {
  const prefix = `${store}:`;
  return (await offlineCacheKeys(page)).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
}
