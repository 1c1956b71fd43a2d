// What a turn is given of a chat's documents (docs/documents.md "Into the conversation"): numbered passages, the best
// match to the user's message first, so [1] is the best passage. Documents small enough go whole (each page or section
// a passage, ranked); larger ones by their best chunks (BM25 over the chat's FTS5 index, folded as chat search folds).
// The reply's [n] are turned into citations of the passage, page and document they point at; numbers pointing at
// nothing are dropped.
import type { Message } from "../../client/wire/index.ts";
import { queryWords } from "../search/query.ts";
import { tokensOfLength } from "./chunks.ts";
import type { DocumentStore, Passage } from "./store.ts";

/** The most chunks a turn is given when its documents are too large to go whole. */
const MAX_CHUNKS = 8;
const QUOTE_CHARS = 300;

export interface Citation {
  n: number;
  document_id: string;
  name: string;
  page: number;
  quote: string;
}

export function passagesFor(
  store: DocumentStore,
  sessionId: string,
  question: string,
  inlineTokens: number,
): Passage[] {
  // Measured in SQL: a chat's documents may hold 100,000 chunks, and only a few of them are given.
  const total = tokensOfLength(store.chatTextLength(sessionId));
  if (total === 0) return [];
  const words = queryWords(question);
  if (total > inlineTokens)
    return words.length > 0 ? store.bestChunks(sessionId, words, MAX_CHUNKS) : store.chatPages(sessionId, MAX_CHUNKS);
  const pages = store.chatPages(sessionId);
  if (words.length === 0) return pages;
  // Whole documents, their pages in the order of each page's best chunk; pages no chunk matched keep their order after.
  const rank = new Map<string, number>();
  store.bestChunks(sessionId, words, 1000).forEach((chunk, index) => {
    const key = `${chunk.document_id}\u0000${chunk.page}`;
    if (!rank.has(key)) rank.set(key, index);
  });
  const rankOf = (page: Passage) => rank.get(`${page.document_id}\u0000${page.page}`) ?? Number.MAX_SAFE_INTEGER;
  return [...pages].sort((a, b) => rankOf(a) - rankOf(b));
}

/** The system message carrying the passages and how to cite them. */
export function passagesMessage(passages: readonly Passage[]): Message {
  const numbered = passages.map(
    (passage, index) => `[${index + 1}] ${passage.name}, ${pageWord(passage)} ${passage.page}:\n${passage.text}`,
  );
  return {
    role: "system",
    content:
      "Passages from the documents attached to this chat follow, best match to the user's message first. Answer from " +
      "them where they help, and cite each passage you use by its number in square brackets, like [1] or [2]. Cite " +
      "only these numbers.\n\n" +
      numbered.join("\n\n"),
  };
}

function pageWord(passage: Passage): string {
  return /\.pdf$/i.test(passage.name) ? "page" : "section";
}

/** The citations of a reply: each [n] that points at a passage, once, in order of first use. */
export function citationsOf(reply: string, passages: readonly Passage[]): Citation[] {
  const seen = new Set<number>();
  const citations: Citation[] = [];
  for (const match of reply.matchAll(/\[(\d{1,4})\]/g)) {
    const n = Number(match[1]);
    const passage = passages[n - 1];
    if (!passage || seen.has(n)) continue;
    seen.add(n);
    citations.push({
      n,
      document_id: passage.document_id,
      name: passage.name,
      page: passage.page,
      quote: passage.text.slice(0, QUOTE_CHARS),
    });
  }
  return citations;
}
