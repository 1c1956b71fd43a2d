// The IndexedDB database of the offline cache: the client library's IndexedDbCache under its default name
// (CACHE_DB_NAME; a test of test/app-dom checks they are equal). Named here too because the service worker's
// source (sw/service-worker-source.ts, imported by the build) must stay free of the library's imports.
export const OFFLINE_DB = "chat-relay-cache";
