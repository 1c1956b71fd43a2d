// What the outbox loads on first use (lazy-outbox.ts): the queue over IndexedDB (memory where there is none), which
// asks for a Background Sync each time a message is queued, and the app's wiring of it (outbox-follow.ts); with it,
// after the first paint, the offline cache's bound from the server's config (offline-bound.ts).
import type { Signal } from "@preact/signals";
import { createOutbox, type Outbox, type WaitingView } from "./outbox.ts";
import { requestBackgroundSync } from "./outbox-follow.ts";
import { indexedDbOutboxStore, memoryOutboxStore } from "./outbox-store.ts";

export { followOutbox } from "./outbox-follow.ts";
export { followOfflineBound } from "./offline-bound.ts";

export function defaultOutbox(
  items: Signal<readonly WaitingView[]>,
  report: (message: string, detail: unknown) => void,
): Outbox {
  const outbox = createOutbox(typeof indexedDB === "undefined" ? memoryOutboxStore() : indexedDbOutboxStore(), items);
  return {
    ...outbox,
    async add(input) {
      const added = await outbox.add(input);
      requestBackgroundSync(report);
      return added;
    },
  };
}
