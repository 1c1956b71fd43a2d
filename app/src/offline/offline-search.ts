// Search over the chats kept on this device, for when the server cannot be reached (docs/app.md "Search",
// "Offline", OF8): a MiniSearch index of the kept chats' messages and titles, built on the first offline search (this
// module and MiniSearch load then, never with the first paint) and brought up to date with the cache before each
// search: a chat the cache dropped (aged out, over the bound, deleted, access revoked, a wipe) leaves the index, a
// chat written since is indexed again. Words are tokenized and folded as the server's search does (client/wire/search-words.ts):
// every word must occur, each as the start of a word. Results have the server's shape, so the dialog shows them alike.
import MiniSearch from "minisearch";
import type { SearchResult } from "../../../client/index.ts";
import type { OfflineCache } from "../state/offline-cache.ts";
import { fold, queryWords, tokens } from "../../../client/index.ts";
import { localSnippet } from "./local-snippet.ts";

interface Entry {
  id: string;
  session_id: string;
  /** The message's index, or null for the chat's title. */
  message_index: number | null;
  text: string;
}

/** What is indexed of one chat: when its messages were written (the cache's version of it), its title, its entries. */
interface IndexedChat {
  opened_at: number;
  title: string;
  archived: boolean;
  ids: string[];
}

export interface LocalSearch {
  search(query: string, limit?: number): Promise<SearchResult[]>;
}

const indexes = new WeakMap<OfflineCache, LocalSearch>();

/** The one index over `cache` (made on first use). */
export function localSearchOf(cache: OfflineCache): LocalSearch {
  let index = indexes.get(cache);
  if (!index) indexes.set(cache, (index = createLocalSearch(cache)));
  return index;
}

export function createLocalSearch(cache: OfflineCache): LocalSearch {
  const mini = new MiniSearch<Entry>({
    fields: ["text"],
    tokenize: (text) => [...tokens(text)].map((token) => token.folded),
    processTerm: (term) => fold(term) || null,
    searchOptions: { prefix: true, combineWith: "AND" },
  });
  const entries = new Map<string, Entry>();
  const chats = new Map<string, IndexedChat>();
  const drop = (session_id: string) => {
    const chat = chats.get(session_id);
    if (!chat) return;
    mini.discardAll(chat.ids.filter((id) => mini.has(id)));
    chat.ids.forEach((id) => entries.delete(id));
    chats.delete(session_id);
  };
  const add = (chat: Omit<IndexedChat, "ids">, session_id: string, messages: ReadonlyArray<{ content: string }>) => {
    const made: Entry[] = [{ id: `${session_id}:title`, session_id, message_index: null, text: chat.title }];
    messages.forEach((message, index) =>
      made.push({ id: `${session_id}:${index}`, session_id, message_index: index, text: message.content }),
    );
    mini.addAll(made);
    made.forEach((entry) => entries.set(entry.id, entry));
    chats.set(session_id, { ...chat, ids: made.map((entry) => entry.id) });
  };
  /** Brings the index to the cache's kept chats. */
  const sync = async () => {
    const kept = await cache.keptChats();
    const list = new Map(((await cache.readSessions()) ?? []).map((session) => [session.id, session]));
    const keptIds = new Set(kept.map((chat) => chat.id));
    for (const session_id of [...chats.keys()]) if (!keptIds.has(session_id)) drop(session_id);
    for (const { id, opened_at } of kept) {
      const summary = list.get(id);
      const chat = { opened_at, title: summary?.title ?? "", archived: summary?.archived === true };
      const known = chats.get(id);
      if (known && known.opened_at === opened_at && known.title === chat.title) continue;
      drop(id);
      const messages = await cache.readMessages(id);
      if (messages) add(chat, id, messages);
    }
  };
  let syncing: Promise<void> = Promise.resolve();
  return {
    async search(query, limit = 20) {
      // One sync at a time: two searches typed fast must not index a chat twice.
      syncing = syncing.then(sync, sync);
      await syncing;
      const words = queryWords(query);
      if (words.length === 0) return [];
      const hits = mini.search(words.join(" ")).slice(0, limit);
      return hits.flatMap((hit) => {
        const entry = entries.get(String(hit.id));
        const chat = entry && chats.get(entry.session_id);
        if (!entry || !chat) return [];
        return [
          {
            session_id: entry.session_id,
            title: chat.title,
            message_index: entry.message_index,
            ...localSnippet(entry.text, words),
            ...(chat.archived ? { archived: true } : {}),
          },
        ];
      });
    },
  };
}
