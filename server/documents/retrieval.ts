// What a turn is given of a chat's documents (docs/documents.md "Into the conversation"): numbered passages, the best
// match to the user's message first, so [1] is the best passage. Documents small enough go whole (each page or section
// a passage, ranked); larger ones by their best chunks: BM25 over the chat's FTS5 index (folded as chat search folds),
// fused by reciprocal rank with the chunks whose vectors are nearest the question's when the agent names an embedding
// model ("Hybrid retrieval"). The reply's [n] are turned into citations of the passage, page and document they point
// at; numbers pointing at nothing are dropped.
import type { Message } from "../../client/wire/index.ts";
import { queryWords } from "../../client/wire/search-words.ts";
import { tokensOfLength } from "./chunks.ts";
import type { ChunkPassage, DocumentStore, Passage } from "./store.ts";
import { fuse } from "./vectors.ts";

/** The most chunks a turn is given when its documents are too large to go whole. */
const MAX_CHUNKS = 8;
/** How deep each ranking goes before they are fused: a chunk second in one and 30th in the other can still win. */
const FUSED_CANDIDATES = 50;
const QUOTE_CHARS = 300;

export interface Citation {
  n: number;
  document_id: string;
  name: string;
  page: number;
  quote: string;
}

/** The question's vector, of the embedding model whose vectors the chat's chunks have (hybrid retrieval). */
export interface VectorQuery {
  model: string;
  vector: Float32Array;
}

export function passagesFor(
  store: DocumentStore,
  sessionId: string,
  question: string,
  inlineTokens: number,
  vectorQuery?: VectorQuery,
): Passage[] {
  // Measured in SQL: a chat's documents may hold 100,000 chunks, and only a few of them are given.
  const total = tokensOfLength(store.chatTextLength(sessionId));
  if (total === 0) return [];
  const words = queryWords(question);
  if (words.length === 0 && !vectorQuery)
    return total > inlineTokens ? store.chatPages(sessionId, MAX_CHUNKS) : store.chatPages(sessionId);
  if (total > inlineTokens) return rankedChunks(store, sessionId, words, vectorQuery);
  const pages = store.chatPages(sessionId);
  // Whole documents, their pages in the order of each page's best chunk; pages no chunk matched keep their order after.
  const rank = new Map<string, number>();
  rankedChunks(store, sessionId, words, vectorQuery, 1000, 1000).forEach((chunk, index) => {
    const key = `${chunk.document_id}\u0000${chunk.page}`;
    if (!rank.has(key)) rank.set(key, index);
  });
  const rankOf = (page: Passage) => rank.get(`${page.document_id}\u0000${page.page}`) ?? Number.MAX_SAFE_INTEGER;
  return [...pages].sort((a, b) => rankOf(a) - rankOf(b));
}

/**
 * The chat's best `limit` chunks: BM25's `depth` best, fused by reciprocal rank with the `depth` nearest by vector
 * when there is a vector query. A chunk only the vector side found is read by its row.
 */
export function rankedChunks(
  store: DocumentStore,
  sessionId: string,
  words: readonly string[],
  vectorQuery: VectorQuery | undefined,
  depth = FUSED_CANDIDATES,
  limit = MAX_CHUNKS,
): ChunkPassage[] {
  const bm25 = words.length > 0 ? store.bestChunks(sessionId, words, vectorQuery ? depth : limit) : [];
  if (!vectorQuery) return bm25;
  const nearest = store.vectors.nearest(sessionId, vectorQuery.model, vectorQuery.vector, depth);
  const fused = fuse([bm25.map((chunk) => chunk.chunk_id), nearest.map((chunk) => chunk.chunk_id)]).slice(0, limit);
  const known = new Map(bm25.map((chunk) => [chunk.chunk_id, chunk]));
  const unread = fused.filter((id) => !known.has(id));
  for (const chunk of store.chunksByIds(sessionId, unread)) known.set(chunk.chunk_id, chunk);
  return fused.flatMap((id) => known.get(id) ?? []);
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
