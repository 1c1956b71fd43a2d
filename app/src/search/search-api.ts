// GET /search (docs/search.md) through the library, and a snippet cut into plain-text pieces at the
// `highlights` offsets. The snippet is text, never HTML: the pieces are rendered as text, the matches as <mark>.
import { headOf, MAX_SEARCH_QUERY, type ChatClient, type SearchResult } from "../../../client/index.ts";

export type { SearchResult };

export async function searchChats(client: ChatClient, query: string, limit = 20): Promise<SearchResult[]> {
  // Cut on whole characters: half an emoji in the query would make the library's URL encoding throw.
  return client.search(headOf(query, MAX_SEARCH_QUERY), { limit });
}

export interface SnippetPiece {
  text: string;
  mark: boolean;
}

/** Cuts `snippet` at the highlight offsets; offsets out of range, reversed or overlapping are clamped or skipped. */
export function snippetPieces(snippet: string, highlights: ReadonlyArray<readonly [number, number]>): SnippetPiece[] {
  const pieces: SnippetPiece[] = [];
  let at = 0;
  const sorted = [...highlights].sort((a, b) => a[0] - b[0]);
  for (const [rawStart, rawEnd] of sorted) {
    const start = Math.max(rawStart, at);
    const end = Math.min(rawEnd, snippet.length);
    if (end <= start) continue;
    if (start > at) pieces.push({ text: snippet.slice(at, start), mark: false });
    pieces.push({ text: snippet.slice(start, end), mark: true });
    at = end;
  }
  if (at < snippet.length) pieces.push({ text: snippet.slice(at), mark: false });
  return pieces;
}
