// The outbox (docs/app.md "Outbox"): messages written while the server could not be reached wait on this device,
// "Waiting to send", editable and cancellable, and go once it answers, exactly once, also after the app was closed:
// each carries its client_request_id (and a chat started offline its client_session_id) from the moment it is
// written, so a send repeated after a lost answer, or after a restart of either side, lands once on the server.
// One message per chat at a time: the next waits for the previous one's reply, so the history each is answered with
// is the one its writer saw. Chats go side by side: a flush starts every chat with a message waiting that is not being
// sent already, also while another chat waits for a long reply.
//
//   waiting ──flush──▶ sending ──accepted──▶ (request_id kept) ──reply done──▶ gone
//      ▲                  │  unreachable / busy: back to waiting, the chat's pass ends (the next flush goes on)
//      ├──────────────────┤  chat gone (deleted, access revoked): the chat's messages are dropped
//      │                  └─ refused as it is (400, 413, 422): refused, with the server's reason; the chat's later
//      └──── Edit ─────── refused      messages wait behind it until it is edited or cancelled
// Edit and cancel act on a waiting or refused message only; one being sent is the server's already. A chat started
// offline keeps its queue (its client_session_id) once created: what is written in it later joins that queue.
import { signal, type ReadonlySignal, type Signal } from "@preact/signals";
import type { OutboxStore, Waiting } from "./outbox-store.ts";

export type WaitingState = "waiting" | "sending" | "refused";
export interface WaitingView extends Waiting {
  state: WaitingState;
  /** Why the server refused it (state "refused"): sent again as it is, it would be refused again. */
  problem?: string;
}

/**
 * What to do after a send failed: wait for the next flush; give the chat's messages up (it is gone); or hold the
 * message, refused as it is, until its writer edits or cancels it.
 */
export type FailureVerdict = "later" | "gone" | "refused";

export interface OutboxSender {
  /** Sends one message (creating its chat first when it has no session yet); the accepted request's ids. */
  send(item: Waiting): Promise<{ session_id: string; request_id: string }>;
  /**
   * Settles when the request has completed, also when it completed before the call (an earlier send of the same
   * message, accepted while no one was listening); rejects when the sender is disposed (unpaired).
   */
  awaitReply(session_id: string, request_id: string): Promise<void>;
  judge(error: unknown): FailureVerdict;
  /** What a refused message says about its refusal. */
  describe(error: unknown): string;
  report(message: string, detail: unknown): void;
}

export interface NewWaiting {
  id: string;
  text: string;
  session_id?: string;
  client_session_id?: string;
  agent_id?: string;
  model?: string;
  request_options?: Record<string, string>;
}

export interface Outbox {
  readonly items: ReadonlySignal<readonly WaitingView[]>;
  /** Reads what an earlier run of the app left waiting. */
  load(): Promise<void>;
  add(input: NewWaiting): Promise<Waiting>;
  /** Changes a waiting or refused message's text (a refused one waits again); false when it is being sent or gone. */
  edit(id: string, text: string): Promise<boolean>;
  cancel(id: string): Promise<boolean>;
  /** Drops every message waiting in a chat (deleted, or no longer shared with this person). */
  dropChat(session_id: string): Promise<void>;
  /** Forgets everything in memory (the store itself was wiped with its database). */
  reset(): void;
  /**
   * Starts each chat with a message waiting that is not being sent already: its messages in order, one at a time, until
   * one cannot go. Resolves when every chat being sent has stopped or emptied.
   */
  flush(sender: OutboxSender): Promise<void>;
}

/** `items` may be given: the first paint's lazy facade (lazy-outbox.ts) owns the signal the views read. */
export function createOutbox(
  store: OutboxStore,
  items: Signal<readonly WaitingView[]> = signal<readonly WaitingView[]>([]),
): Outbox {
  let seq = 0;
  const find = (id: string) => items.value.find((item) => item.id === id);
  const replace = (next: WaitingView) => (items.value = items.value.map((item) => (item.id === next.id ? next : item)));
  const drop = (ids: ReadonlySet<string>) => (items.value = items.value.filter((item) => !ids.has(item.id)));
  // What is kept is the message, not how its last try went: a refused one is tried once more after a restart.
  const persist = async ({ state: _state, problem: _problem, ...item }: WaitingView) => store.put(item);

  const dropWhere = async (doomed: (item: WaitingView) => boolean) => {
    const ids = new Set(items.value.filter(doomed).map((item) => item.id));
    drop(ids);
    await Promise.all([...ids].map((id) => store.remove(id)));
  };
  const sendChat = chatSender({ items, store, find, replace, drop, dropWhere, persist });
  const { flush, freed, forget } = chatRuns(items, sendChat);

  return {
    items,
    async load() {
      const stored = (await store.list()).sort((a, b) => a.seq - b.seq);
      seq = Math.max(seq, ...stored.map((item) => item.seq + 1));
      const known = new Set(items.value.map((item) => item.id));
      const fresh = stored
        .filter((item) => !known.has(item.id))
        .map((item) => ({ ...item, state: "waiting" as const }));
      items.value = [...items.value, ...fresh].sort((a, b) => a.seq - b.seq);
    },
    async add(input) {
      const chat = queueOf(items.value, input);
      if (!chat) throw new Error("a waiting message needs its chat's session_id or client_session_id");
      const item: Waiting = {
        id: input.id,
        chat,
        text: input.text,
        request_options: input.request_options ?? {},
        seq: Math.max(seq, Date.now()),
        ...pick(input, ["session_id", "client_session_id", "agent_id", "model"]),
      };
      seq = item.seq + 1;
      await store.put(item);
      items.value = [...items.value.filter((other) => other.id !== item.id), { ...item, state: "waiting" }];
      return item;
    },
    async edit(id, text) {
      const item = find(id);
      if (!item || item.state === "sending") return false;
      const { problem: _problem, ...rest } = item;
      const edited: WaitingView = { ...rest, text, state: "waiting" };
      replace(edited);
      await persist(edited);
      freed(item);
      return true;
    },
    async cancel(id) {
      const item = find(id);
      if (!item || item.state === "sending") return false;
      await dropWhere((other) => other.id === id);
      freed(item);
      return true;
    },
    dropChat: (session_id) => dropWhere((item) => item.session_id === session_id || item.chat === session_id),
    reset() {
      items.value = [];
      forget();
    },
    flush,
  };
}

/**
 * The chats being sent, each until its messages are gone or one cannot go. `flush` starts every chat with a message
 * waiting that is not running; `freed` starts a refused message's chat again, with the last flush's sender, once the
 * message was edited or cancelled.
 */
function chatRuns(items: Signal<readonly WaitingView[]>, sendChat: ReturnType<typeof chatSender>) {
  const running = new Map<string, Promise<void>>();
  let lastSender: OutboxSender | undefined;
  const start = (chat: string, sender: OutboxSender) => {
    const run: Promise<void> = sendChat(chat, sender).finally(() => running.get(chat) === run && running.delete(chat));
    running.set(chat, run);
  };
  const flush = (sender: OutboxSender) => {
    lastSender = sender;
    for (const { chat } of items.value.filter((item) => item.state === "waiting"))
      if (!running.has(chat)) start(chat, sender);
    return Promise.all(running.values()).then(() => undefined);
  };
  const freed = (was: WaitingView) => {
    const sender = lastSender;
    if (was.state === "refused" && sender)
      flush(sender).catch((error: unknown) => sender.report("sending the outbox failed", error));
  };
  // After a reset (unpaired) the runs still waiting on the old pairing's sender no longer hold their chats: a chat
  // written in after pairing again is started by the next flush (the old run ends when its sender is disposed).
  const forget = () => (running.clear(), (lastSender = undefined));
  return { flush, freed, forget };
}

interface Queue {
  items: Signal<readonly WaitingView[]>;
  store: OutboxStore;
  find(id: string): WaitingView | undefined;
  replace(next: WaitingView): void;
  drop(ids: ReadonlySet<string>): void;
  dropWhere(doomed: (item: WaitingView) => boolean): Promise<void>;
  persist(item: WaitingView): Promise<void>;
}

/** Sends one chat's waiting messages in order, each after the previous one's reply, until one cannot go. */
function chatSender({ items, store, find, replace, drop, dropWhere, persist }: Queue) {
  /**
   * A chat started offline has a session now: its other messages go to it (their queue, and their client_session_id,
   * stay). Each is read again just before it is written, so an edit or a cancel made meanwhile is not undone.
   */
  const bindChat = async (chat: string, session_id: string, sent: WaitingView) => {
    for (const { id } of items.value.filter((other) => other.chat === chat)) {
      const item = find(id);
      if (!item || (item.id !== sent.id && item.session_id === session_id)) continue;
      const bound = item.id === sent.id ? sent : { ...item, session_id };
      replace(bound);
      await persist(bound);
    }
  };
  return async (chat: string, sender: OutboxSender) => {
    for (let next = firstOf(items.value, chat); next; next = firstOf(items.value, chat)) {
      const sending: WaitingView = { ...next, state: "sending" };
      replace(sending);
      try {
        const accepted = await sender.send(sending);
        const kept = { ...sending, session_id: accepted.session_id, request_id: accepted.request_id };
        replace(kept);
        await bindChat(chat, accepted.session_id, kept);
        await sender.awaitReply(accepted.session_id, accepted.request_id);
        await store.remove(next.id);
        drop(new Set([next.id]));
      } catch (error) {
        const verdict = sender.judge(error);
        const current = find(next.id);
        if (current && verdict === "refused")
          replace({ ...current, state: "refused", problem: sender.describe(error) });
        else if (current) replace({ ...current, state: "waiting" });
        if (verdict !== "gone") return;
        sender.report("a waiting message's chat is gone; its messages were dropped", error);
        await dropWhere((item) => item.chat === chat);
      }
    }
  };
}

/**
 * The queue a new message joins: that of the messages already waiting for its chat, also when they were written in
 * the chat before it had a session (their queue is its client_session_id), so one chat is never two queues.
 */
function queueOf(items: readonly WaitingView[], input: NewWaiting): string | undefined {
  const sameChat = input.session_id && items.find((item) => item.session_id === input.session_id);
  return sameChat ? sameChat.chat : (input.session_id ?? input.client_session_id);
}

/** The chat's next message to send: its first not being sent, unless that one was refused (the rest wait behind it). */
function firstOf(items: readonly WaitingView[], chat: string): WaitingView | undefined {
  const first = items.find((item) => item.chat === chat && item.state !== "sending");
  return first?.state === "waiting" ? first : undefined;
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => from[key] !== undefined).map((key) => [key, from[key]])) as never;
}
