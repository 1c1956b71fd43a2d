// GET /search (docs/search.md): the answer checked with zod, and a snippet cut into plain-text pieces at the
// `highlights` offsets. The snippet is text, never HTML: the pieces are rendered as text, the matches as <mark>.
import { z } from "zod";
import type { ChatClient } from "../../../client/index.ts";

export const searchResultSchema = z.looseObject({
  session_id: z.string(),
  title: z.string(),
  message_index: z.number().int().nonnegative().nullable(),
  snippet: z.string(),
  highlights: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
  archived: z.boolean().optional(),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

const searchAnswerSchema = z.looseObject({ results: z.array(searchResultSchema) });

/** The server takes at most 1000 characters of query. */
export const MAX_QUERY = 1000;

export async function searchChats(client: ChatClient, query: string, limit = 20): Promise<SearchResult[]> {
  const answer = await client.request("GET", "/search", searchAnswerSchema, {
    query: { q: query.slice(0, MAX_QUERY), limit: String(limit) },
  });
  return answer.results;
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
