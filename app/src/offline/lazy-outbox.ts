// The outbox as the first paint holds it: the signal its views read and the operations, each loading the outbox's
// code (outbox-parts.ts: the queue, its IndexedDB store, the sender) on first use, so the first paint does not carry
// it. The app loads it right after start anyway (store.ts), to send what an earlier run left waiting.
import { signal } from "@preact/signals";
import type { Outbox, WaitingView } from "./outbox.ts";

export function lazyOutbox(report: (message: string, detail: unknown) => void): Outbox {
  const items = signal<readonly WaitingView[]>([]);
  let real: Promise<Outbox> | undefined;
  const load = () => (real ??= import("./outbox-parts.ts").then((parts) => parts.defaultOutbox(items, report)));
  return {
    items,
    load: async () => (await load()).load(),
    add: async (input) => (await load()).add(input),
    edit: async (id, text) => (await load()).edit(id, text),
    cancel: async (id) => (await load()).cancel(id),
    dropChat: async (session_id) => (await load()).dropChat(session_id),
    reset() {
      items.value = [];
      void real?.then((outbox) => outbox.reset());
    },
    flush: async (sender) => (await load()).flush(sender),
  };
}
