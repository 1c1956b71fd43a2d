// The store's slice for "Search chats" (docs/app.md "Search"): whether the search is open, what it shows, and the
// message a result asked the chat to show. Answers arrive out of order when typing fast: only the answer to the
// latest query is kept. With the server unreachable (the badge Offline or Server offline, a search that found it
// so, or, while still connecting, no answer within UNREACHABLE_AFTER_MS), the chats kept on this device are searched
// instead (app/src/offline/offline-search.ts, loaded then).
import { signal, type ReadonlySignal } from "@preact/signals";
import type { Connection } from "../state/connection.ts";
import { ServerUnreachableError, UNREACHABLE_AFTER_MS } from "../state/chat-feed.ts";
import type { OfflineCache } from "../state/offline-cache.ts";
import { describeError } from "../state/errors.ts";
import type { Router } from "../state/router.ts";
import type { SearchResult } from "./search-api.ts";
import { serverAnswers, serverUnreachable } from "../state/connection-status.ts";

export type SearchView =
  | { kind: "empty" }
  | { kind: "loading"; query: string }
  /** `local`: searched on this device (the server unreachable), over the chats kept here. */
  | { kind: "results"; query: string; results: SearchResult[]; local?: boolean }
  | { kind: "error"; query: string; message: string }
  | { kind: "offline"; query: string; message: string };

/** The message the chat scrolls to and highlights; `seq` makes opening the same result twice scroll again. */
export interface MessageFocus {
  session_id: string;
  message_index: number;
  seq: number;
}

export interface Search {
  readonly open: ReadonlySignal<boolean>;
  readonly query: ReadonlySignal<string>;
  readonly view: ReadonlySignal<SearchView>;
  readonly focus: ReadonlySignal<MessageFocus | undefined>;
  show(): void;
  hide(): void;
  /** Searches for `query` (an empty one shows the empty state); resolves when this query's answer is shown. */
  run(query: string): Promise<void>;
  /** Opens the result's chat at its message (a title match opens the chat). */
  openResult(result: SearchResult): void;
  /** The chat calls this once it showed the focused message. */
  clearFocus(): void;
}

export function createSearch(connection: Connection, router: Router, offline: OfflineCache): Search {
  const open = signal(false);
  const query = signal("");
  const view = signal<SearchView>({ kind: "empty" });
  const focus = signal<MessageFocus | undefined>(undefined);
  let latest = 0;

  const unreachable = () => serverUnreachable(connection.badge.value);
  const answering = () => serverAnswers(connection.badge.value);

  /** Offline: the chats kept on this device are searched instead (the index loads with the first such search). */
  const searchHere = async (seq: number, trimmed: string) => {
    try {
      const { localSearchOf } = await import("../offline/offline-search.ts");
      const results = await localSearchOf(offline).search(trimmed);
      if (seq === latest) view.value = { kind: "results", query: trimmed, results, local: true };
    } catch (error) {
      if (seq === latest)
        view.value = { kind: "error", query: trimmed, message: `Search failed: ${describeError(error, "offline")}` };
    }
  };

  return {
    open,
    query,
    view,
    focus,
    show: () => void (open.value = true),
    hide: () => void (open.value = false),
    async run(text) {
      const seq = ++latest;
      query.value = text;
      const trimmed = text.trim();
      if (trimmed === "") return void (view.value = { kind: "empty" });
      const client = connection.paired.value?.client;
      if (!client)
        return void (view.value = { kind: "offline", query: trimmed, message: "This device is not paired." });
      view.value = { kind: "loading", query: trimmed };
      if (unreachable()) return searchHere(seq, trimmed);
      try {
        // The answer's schema loads with the dialog, not with the app.
        const { searchChats } = await import("./search-api.ts");
        const asked = searchChats(client, trimmed);
        // Not connected yet (the server may be gone): it gets as long as a chat's load does, then this device answers.
        const results = await (answering() ? asked : withinDeadline(asked));
        connection.noteCall();
        if (seq === latest) view.value = { kind: "results", query: trimmed, results };
      } catch (error) {
        if (error instanceof ServerUnreachableError) return searchHere(seq, trimmed);
        await connection.diagnose(error);
        if (seq !== latest) return;
        // Failed while not connected (offline, or still connecting to a server that is gone): this device answers.
        if (!answering()) return searchHere(seq, trimmed);
        view.value = {
          kind: "error",
          query: trimmed,
          message: `Search failed: ${describeError(error, connection.badge.value)}`,
        };
      }
    },
    openResult(result) {
      open.value = false;
      if (result.message_index !== null)
        focus.value = { session_id: result.session_id, message_index: result.message_index, seq: latest };
      router.navigate({ name: "chat", session_id: result.session_id });
    },
    clearFocus: () => void (focus.value = undefined),
  };
}

/** The answer, or ServerUnreachableError once UNREACHABLE_AFTER_MS passed without one (the answer is then ignored). */
function withinDeadline<T>(answer: Promise<T>): Promise<T> {
  answer.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ServerUnreachableError(`the server did not answer within ${UNREACHABLE_AFTER_MS / 1000} s`)),
      UNREACHABLE_AFTER_MS,
    );
  });
  return Promise.race([answer, deadline]).finally(() => clearTimeout(timer));
}
