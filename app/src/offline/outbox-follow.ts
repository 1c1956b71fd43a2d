// The outbox in the running app (docs/app.md "Outbox"): what an earlier run left waiting is read at start, and the
// outbox is flushed whenever the server answers again (the badge turns Live or Polling), when the service worker's
// Background Sync says the network is back ("outbox-flush"), at every open, and again after a pause when a send had to
// wait while the badge stayed up (outbox-retry.ts). A failed send tells the badge what it learned, as the
// composer's does, so the badge does not say Live while the outbox cannot reach the server. A chat deleted or no
// longer shared with this person (the sync's `deleted` set, from session_deleted and session_access_revoked) drops
// its waiting messages.
import { effect, untracked } from "@preact/signals";
import type { Connection } from "../state/connection.ts";
import type { Sessions } from "../state/sessions.ts";
import type { Sync } from "../state/sync.ts";
import type { FailureVerdict, Outbox } from "./outbox.ts";
import { clientSender } from "./outbox-sender.ts";
import { retrySchedule } from "./outbox-retry.ts";
import { OUTBOX_SYNC_TAG } from "./outbox-sync-tag.ts";
import { serverAnswers } from "../state/connection-status.ts";

interface Parts {
  connection: Connection;
  sessions: Sessions;
  sync: Sync;
  report(message: string, detail: unknown): void;
}

export function followOutbox({ connection, sessions, sync, report }: Parts, outbox: Outbox): () => void {
  const loaded = outbox.load().catch((error: unknown) => report("reading the outbox failed", error));
  let sender: ReturnType<typeof clientSender> | undefined;
  const answering = () => connection.paired.peek() !== undefined && serverAnswers(connection.badge.peek());
  const flush = () =>
    void loaded.then(() => {
      if (!sender || outbox.items.peek().length === 0) return;
      outbox.flush(sender).catch((error: unknown) => report("sending the outbox failed", error));
    });
  // Due while the badge says the server cannot be reached, a try is dropped: the badge's return flushes.
  const retry = retrySchedule(() => answering() && flush());
  const laterOnPause = (verdict: FailureVerdict) => {
    if (verdict === "later" && answering()) retry.later();
    return verdict;
  };
  const stops = [
    effect(() => {
      const client = connection.paired.value?.client;
      if (!client) return;
      const failed = (error: unknown) => void connection.diagnose(error);
      const own = clientSender(client, { created: (session) => sessions.upsert(session), failed, report });
      // A chat whose send must wait (its verdict "later") is tried again after a pause while the server answers; the
      // send's failure has told the badge first, so a server off the bridge leaves the pauses to the badge's return.
      const wrapped = { ...own, judge: (error: unknown) => laterOnPause(own.judge(error)) };
      sender = wrapped;
      return () => (own.dispose(), sender === wrapped && (sender = undefined));
    }),
    effect(() => {
      if (outbox.items.value.length === 0) untracked(retry.reset);
    }),
    flushWhenAdded(outbox, () => untracked(answering) && untracked(flush)),
    effect(() => {
      connection.badge.value;
      if (!untracked(answering)) return;
      retry.reset();
      untracked(flush);
    }),
    effect(() => {
      for (const session_id of sync.deleted.value) void untracked(() => outbox.dropChat(session_id));
    }),
    onWorkerMessage(flush),
    retry.reset,
  ];
  return () => stops.forEach((stop) => stop());
}

/**
 * A message added while the server answers (written behind earlier ones of its chat, docs/app.md OB16) is sent by a
 * flush now, not at the next change of the badge. Only additions: a send failing back to "waiting" keeps its pauses.
 */
function flushWhenAdded(outbox: Outbox, flushIfAnswering: () => void): () => void {
  let known = new Set<string>();
  return effect(() => {
    const ids = new Set(outbox.items.value.map((item) => item.id));
    const added = [...ids].some((id) => !known.has(id));
    known = ids;
    if (added) flushIfAnswering();
  });
}

/** Asks the service worker to wake when the network is back (where the browser has Background Sync). */
export function requestBackgroundSync(report: Parts["report"]): void {
  const worker = typeof navigator === "undefined" ? undefined : navigator.serviceWorker;
  if (!worker) return;
  worker.ready
    .then((registration) =>
      (registration as { sync?: { register(tag: string): Promise<void> } }).sync?.register(OUTBOX_SYNC_TAG),
    )
    .catch((error: unknown) => report("asking for a background sync failed", error));
}

function onWorkerMessage(flush: () => void): () => void {
  const worker = typeof navigator === "undefined" ? undefined : navigator.serviceWorker;
  if (!worker) return () => undefined;
  const onMessage = (event: MessageEvent) => {
    if ((event.data as { type?: unknown } | null)?.type === "outbox-flush") flush();
  };
  worker.addEventListener("message", onMessage);
  return () => worker.removeEventListener("message", onMessage);
}
