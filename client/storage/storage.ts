// Where the library keeps credentials and caches (the mobile dismissal cache). Three adapters cover the
// platforms: memory (tests, Node), the browser's localStorage, and any async key-value store with the
// AsyncStorage shape (React Native). Values are strings; callers validate what they read back with zod.
export interface StorageAdapter {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** Synchronous Web Storage (window.localStorage) or anything shaped like it. */
export interface SyncStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** React Native's AsyncStorage and similar: the same three methods, returning promises. */
export interface AsyncStorageLike {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

export function memoryStorage(): StorageAdapter & { readonly size: number } {
  const items = new Map<string, string>();
  return {
    getItem: async (key) => items.get(key) ?? null,
    setItem: async (key, value) => void items.set(key, value),
    removeItem: async (key) => void items.delete(key),
    get size() {
      return items.size;
    },
  };
}

export function webStorage(storage: SyncStorageLike, prefix = "chat-relay:"): StorageAdapter {
  return {
    getItem: async (key) => storage.getItem(prefix + key),
    setItem: async (key, value) => storage.setItem(prefix + key, value),
    removeItem: async (key) => storage.removeItem(prefix + key),
  };
}

export function asyncStorage(storage: AsyncStorageLike, prefix = "chat-relay:"): StorageAdapter {
  return {
    getItem: (key) => storage.getItem(prefix + key),
    setItem: (key, value) => storage.setItem(prefix + key, value),
    removeItem: (key) => storage.removeItem(prefix + key),
  };
}
