// The Background Sync tag of the outbox: the app registers it when a message waits (offline/outbox-follow.ts); the
// service worker answers its `sync` by telling open windows to flush (sw/service-worker-source.ts). Its own file so
// the worker's source, built without the app's imports, can share it.
export const OUTBOX_SYNC_TAG = "chat-relay-outbox";
