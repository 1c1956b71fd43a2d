// Where the outbox keeps the messages written while the server could not be reached (docs/app.md "Offline",
// "Outbox"): the offline cache's IndexedDB database, in its own `outbox` store, one record per message keyed by its
// client_request_id. The same database on purpose: the service worker deletes it on a revocation or an unpair, so a
// revoked device keeps no unsent text either. A read never creates the database (a browser never paired keeps none);
// every record read is checked with zod, so one from an older build reads as absent.
import { z } from "zod";
import { offlineDatabase, OUTBOX_STORE } from "./offline-stores.ts";

export const waitingSchema = z.object({
  /** The client_request_id it is sent with, every time: the server runs it once. */
  id: z.string().min(1).max(100),
  /** The chat it waits in: its session id, or for a chat started offline the client_session_id it is created with. */
  chat: z.string().min(1).max(100),
  session_id: z.string().optional(),
  client_session_id: z.string().optional(),
  agent_id: z.string().optional(),
  model: z.string().optional(),
  request_options: z.record(z.string(), z.string()),
  text: z.string(),
  /** Order of writing, over all chats: a chat's messages go in this order. */
  seq: z.number(),
  /** The request_id the server gave when a send was accepted and its reply not yet seen (a retry looks it up). */
  request_id: z.string().optional(),
});
export type Waiting = z.infer<typeof waitingSchema>;

export interface OutboxStore {
  list(): Promise<Waiting[]>;
  put(item: Waiting): Promise<void>;
  remove(id: string): Promise<void>;
}

export { OUTBOX_STORE };

export function memoryOutboxStore(): OutboxStore {
  const items = new Map<string, Waiting>();
  return {
    list: async () => [...items.values()].map((item) => structuredClone(item)),
    put: async (item) => void items.set(item.id, structuredClone(item)),
    remove: async (id) => void items.delete(id),
  };
}

/** The outbox over IndexedDB; its connection closes itself when the worker deletes the database, and reopens. */
export function indexedDbOutboxStore(factory?: IDBFactory): OutboxStore {
  const { open: db, exists } = offlineDatabase(factory);
  return {
    async list() {
      if (!(await exists())) return [];
      const cache = await db();
      const keys = await cache.keys(OUTBOX_STORE);
      const items = await Promise.all(keys.map((key) => cache.get(OUTBOX_STORE, key)));
      return items.flatMap((item) => {
        const parsed = waitingSchema.safeParse(item);
        return parsed.success ? [parsed.data] : [];
      });
    },
    put: async (item) => (await db()).put(OUTBOX_STORE, item.id, item),
    remove: async (id) => ((await exists()) ? (await db()).delete(OUTBOX_STORE, id) : undefined),
  };
}
