// The outbox's sender over the client library (app/src/offline/outbox.ts): a waiting message goes as the composer
// sends (chat/send.ts, with its client_request_id and, for a chat started offline, its client_session_id), and the
// next of its chat waits for this one's request_completed. Completions are collected from the moment the sender
// exists, so a reply that arrives before its send's answer is not missed; and since a send may repeat an earlier
// accepted one whose reply completed unheard (the answer lost, the app closed), the request's own events are read too.
import type { AnyEvent, ChatClient, Session } from "../../../client/index.ts";
import { NetworkError, ResponseError, ServerOfflineError } from "../../../client/index.ts";
import { sendMessage } from "../chat/send.ts";
import { describeError } from "../state/errors.ts";
import type { FailureVerdict, OutboxSender } from "./outbox.ts";
import type { Waiting } from "./outbox-store.ts";

/** Completions remembered while no one waits for them; past this the oldest go (they belong to other sends). */
const KEEP_COMPLETED = 200;

/**
 * How long a send may go unanswered before the outbox gives it up (its calls aborted) and tries it again later with
 * the same ids (docs/app.md OB12): a request that never settles (no answer, no error, no timeout of its own over
 * direct HTTP) would hold its chat's queue, and every later flush, for good. The bridge relay gives up at 35 s.
 */
export const OUTBOX_SEND_TIMEOUT_MS = 30_000;

export interface SenderHooks {
  created(session: Session): void;
  /** A send failed: what it learned of the connection is the badge's (the app's `connection.diagnose`). */
  failed(error: unknown): void;
  report(message: string, detail: unknown): void;
}

export function clientSender(client: ChatClient, hooks: SenderHooks): OutboxSender & { dispose(): void } {
  const completed = new Set<string>();
  const waiters = new Map<string, { done(): void; failed(error: Error): void }>();
  const disposed = new AbortController();
  const off = client.on("*", (event: AnyEvent) => {
    if (event.type !== "request_completed" || event.request_id === undefined) return;
    const waiter = waiters.get(event.request_id);
    if (waiter) return waiter.done();
    completed.add(event.request_id);
    if (completed.size > KEEP_COMPLETED) completed.delete(completed.values().next().value!);
  });
  // A reset (the event cursor expired, or the server's store is another) skips the events between: a reply that
  // completed in the gap is never heard. Its wait ends now; the chat's next message, should that reply still run, is
  // refused as busy (409) and goes on the outbox's pauses, after it (docs/app.md OB13).
  const offReset = client.onReset(() => [...waiters.values()].forEach((waiter) => waiter.done()));
  return {
    // A chat created by a send answered after an unpair is the old pairing's: it stays out of the list.
    send: (item) =>
      send(client, item, { ...hooks, created: (session) => disposed.signal.aborted || hooks.created(session) }),
    awaitReply(_session_id, request_id) {
      return new Promise<void>((resolve, reject) => {
        const settle = (then: () => void) => () => (waiters.delete(request_id), completed.delete(request_id), then());
        const done = settle(resolve);
        if (completed.has(request_id)) return done();
        waiters.set(request_id, { done, failed: (error) => settle(() => reject(error))() });
        // The reply may have completed before this wait: an earlier send of this message was accepted, its answer
        // lost (given up, or the app closed), and its request_completed delivered before anyone listened for it
        // (docs/app.md OB15). The request's own events say so; a read that fails leaves the wait to the events.
        completedInLog(client, request_id, disposed.signal).then(
          (found) => found && waiters.has(request_id) && done(),
          (error: unknown) => disposed.signal.aborted || hooks.report("reading a reply's events failed", error),
        );
      });
    },
    judge,
    describe,
    report: hooks.report,
    dispose: () => {
      off();
      offReset();
      disposed.abort();
      // Unpaired: no event will end these waits; their chats' runs end (their messages were wiped with the store).
      const closed = new Error("the outbox's client was closed");
      [...waiters.values()].forEach((waiter) => waiter.failed(closed));
    },
  };
}

/** One waiting message sent as the composer sends it, given up after OUTBOX_SEND_TIMEOUT_MS (OB12). */
function send(client: ChatClient, item: Waiting, hooks: SenderHooks) {
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(), OUTBOX_SEND_TIMEOUT_MS);
  return sendMessage(
    client,
    {
      ...(item.session_id ? { session_id: item.session_id } : {}),
      ...(item.client_session_id ? { client_session_id: item.client_session_id } : {}),
      ...(item.agent_id ? { agent_id: item.agent_id } : {}),
      ...(item.model ? { model: item.model } : {}),
      text: item.text,
      attachments: [],
      request_options: item.request_options,
      client_request_id: item.id,
    },
    hooks,
    { signal: giveUp.signal },
  )
    .catch((error: unknown) => {
      hooks.failed(error);
      throw error;
    })
    .finally(() => clearTimeout(timer));
}

/** Whether the request's events in the server's log include its request_completed (GET /events by request_id). */
async function completedInLog(client: ChatClient, request_id: string, signal: AbortSignal): Promise<boolean> {
  for (let since: string | undefined, more = true; more && !signal.aborted;) {
    const page = await client.readEvents(since === undefined ? { request_id } : { request_id, since_id: since }, {
      signal,
    });
    const events = page.events as Array<{ type?: unknown; request_id?: unknown }>;
    if (events.some((event) => event.type === "request_completed" && event.request_id === request_id)) return true;
    since = page.next_since_id;
    more = page.has_more === true;
  }
  return false;
}

/**
 * A chat deleted, or no longer this person's to write in, will not take its messages later either; a message the
 * server refuses as it is (invalid, too large) will be refused again until it is changed. Anything else may pass later.
 */
function judge(error: unknown): FailureVerdict {
  if (error instanceof NetworkError || error instanceof ServerOfflineError) return "later";
  if (error instanceof ResponseError && [403, 404].includes(error.status)) return "gone";
  if (error instanceof ResponseError && [400, 413, 422].includes(error.status)) return "refused";
  return "later";
}

/** What a refused message says: the server's own reason, or for one too large, what to do. */
function describe(error: unknown): string {
  if (error instanceof ResponseError && error.status === 413)
    return "the message is longer than the server accepts. Shorten it, or split it in two.";
  return describeError(error);
}
