// The IndexedDB database of the offline cache, named once for the app (offline-cache.ts) and its service worker
// (sw/service-worker-source.ts, which the build imports: this file must stay free of other imports).
export const OFFLINE_DB = "chat-relay-offline";
