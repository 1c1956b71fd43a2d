// GET /search's work (docs/search.md): the words of the query as an FTS5 prefix query, the best matches by BM25,
// each with its session's title and a plain-text snippet. The index is brought up to the newest commit first, so a
// search sees every message committed before it was asked.
import type { Db } from "../db/database.ts";
import type { Transactor } from "../db/transactor.ts";
import type { SearchIndexer } from "./indexer.ts";
import { TITLE_INDEX } from "./indexer.ts";
import { matchExpression, queryWords } from "./query.ts";
import { makeSnippet } from "./snippet.ts";

export interface SearchResult {
  session_id: string;
  title: string;
  /** The message's index in the session's shown messages; null when the session's title matched. */
  message_index: number | null;
  snippet: string;
  highlights: Array<[number, number]>;
  /** The session is archived: search finds archived chats too (docs/search.md), and says so. */
  archived: boolean;
}

type Row = { session_id: string; message_index: number; text: string; title: string; archived: number };

export class SearchService {
  private readonly select;

  constructor(
    db: Db,
    private readonly transactor: Transactor,
    private readonly indexer: SearchIndexer,
  ) {
    // rank is bm25() with FTS5's ORDER BY rank shortcut; the joins read only the page's rows.
    this.select = db.prepare<[string, number], Row>(
      `SELECT d.session_id, d.message_index, d.text, s.title, s.archived
       FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT ?) m
       JOIN search_docs d ON d.id = m.rowid JOIN search_sessions s ON s.session_id = d.session_id
       ORDER BY m.rank`,
    );
  }

  search(query: string, limit: number): SearchResult[] {
    const words = queryWords(query);
    if (words.length === 0) return [];
    this.indexer.catchUp();
    const rows = this.transactor.read(() => this.select.all(matchExpression(words), limit));
    return rows.map((row) => ({
      session_id: row.session_id,
      title: row.title,
      message_index: row.message_index === TITLE_INDEX ? null : row.message_index,
      ...makeSnippet(row.text, words),
      archived: row.archived === 1,
    }));
  }
}
