// GET /search's work (docs/search.md): the words of the query as an FTS5 prefix query, the best matches by BM25,
// each with its session's title and a plain-text snippet, among the chats the asking person may see. The words are
// asked for as that person's (person-words.ts), so the query reads their rows only, not every person's. The index is
// brought up to the newest commit first, so a search sees every message committed before it was asked.
import { VISIBLE_SESSIONS } from "../people/chat-audiences.ts";
import type { Db } from "../db/database.ts";
import type { Transactor } from "../db/transactor.ts";
import type { SessionService } from "../sessions/session-service.ts";
import type { SearchIndexer } from "./indexer.ts";
import { TITLE_INDEX } from "./indexer.ts";
import { queryWords } from "../../client/wire/search-words.ts";
import { searchTag } from "./person-words.ts";
import { matchExpression } from "./query.ts";
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

/** Matches ranked at most: past this many, a query is ranked among its newest matches only. */
export const RANKED_MATCHES = 10_000;

type Row = { session_id: string; message_index: number; title: string; archived: number };

export class SearchService {
  private readonly select;
  private readonly nthNewest;

  constructor(
    db: Db,
    private readonly transactor: Transactor,
    readonly indexer: SearchIndexer,
    /** Where a result's text is read back from for its snippet (the index keeps none). */
    private readonly sessions: Pick<SessionService, "shownAt">,
    /** Matches ranked at most (RANKED_MATCHES; tests make it small). */
    private readonly rankedMatches = RANKED_MATCHES,
  ) {
    // bm25() by name, not FTS5's `ORDER BY rank` shortcut: the shortcut scores every match before it applies the
    // rowid floor (below), bm25() scores only the matches within it. The match is of the person's own words, so it
    // finds only rows of chats they may see; the filter on their chats (docs/people.md "Visibility") stays, so that
    // holds whatever the index holds (two people's tags alike, a share taken back and not yet reindexed).
    this.select = db.prepare<[{ match: string; floor: number; limit: number; person: string }], Row>(
      `SELECT d.session_id, d.message_index, s.title, s.archived
       FROM (SELECT rowid, bm25(search_fts) AS score FROM search_fts WHERE search_fts MATCH @match AND rowid >= @floor) m
       JOIN search_docs d ON d.id = m.rowid JOIN search_sessions s ON s.session_id = d.session_id
       WHERE d.session_id IN (${VISIBLE_SESSIONS})
       ORDER BY m.score LIMIT @limit`,
    );
    // Walks the match list newest first without scoring it: cheap even when most messages match.
    this.nthNewest = db.prepare<[string, number], { rowid: number }>(
      "SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
    );
  }

  /** The best matches among the chats person `personId` may see. */
  async search(query: string, limit: number, personId: string): Promise<SearchResult[]> {
    const words = queryWords(query);
    if (words.length === 0) return [];
    await this.indexer.caughtUp();
    const match = matchExpression(words, searchTag(personId));
    const rows = this.transactor.read(() => {
      // BM25 scores every match (about 0.5 µs each): a word in most of 100,000 messages would cost 50 ms. Past
      // RANKED_MATCHES matches, only the newest that many are ranked (docs/search.md "Ranking").
      const floor = this.nthNewest.get(match, this.rankedMatches - 1)?.rowid ?? 0;
      return this.select.all({ match, floor, limit, person: personId });
    });
    // One read for the whole page: the live sessions it names and only the messages its rows point at (a chat is
    // never loaded whole for a snippet: a match in a 5,000-message chat read 5,000 messages). A session the store no
    // longer gives (deleted, its session_deleted not yet committed) is left out.
    return this.transactor.read(() => {
      const shown = this.sessions.shownAt(rows.map((row) => [row.session_id, row.message_index] as const));
      return rows.flatMap((row) => {
        const messages = shown.get(row.session_id);
        if (!messages) return [];
        const title = row.message_index === TITLE_INDEX;
        const text = title ? row.title : (messages.get(row.message_index)?.content ?? "");
        return [
          {
            session_id: row.session_id,
            title: row.title,
            message_index: title ? null : row.message_index,
            ...makeSnippet(text, words),
            archived: row.archived === 1,
          },
        ];
      });
    });
  }
}
