// The object stores of the offline cache's one IndexedDB database (the client library's IndexedDbCache): the chat
// list and the index of kept chats (`sessions`), each kept chat's messages (`transcripts`), the outbox's waiting
// messages (`outbox`) and the kept chats' images (`assets`). Every opener names all of them, so whichever opens the
// database first creates every store and no opener upgrades it under another's open connection.
import { DEFAULT_CACHE_STORES } from "../../../client/index.ts";

export const OUTBOX_STORE = "outbox";
export const ASSETS_STORE = "assets";
export const OFFLINE_STORES = [...DEFAULT_CACHE_STORES, OUTBOX_STORE, ASSETS_STORE] as const;
