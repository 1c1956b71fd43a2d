// The documents' rows (docs/documents.md "Storage"): the library (documents, document_pages) and each chat's copy
// (chat_documents, chat_document_pages, chat_document_chunks with its FTS5 index). SQL lives here and nowhere else.
import type { Db } from "../db/database.ts";
import type { DocumentRecord } from "../../client/wire/events.ts";
import type { Section } from "./extract-messages.ts";
import { chunksOf } from "./chunks.ts";

interface DocumentRow {
  id: string;
  owner: string;
  name: string;
  media_type: string;
  bytes: number;
  pages: number;
  status: "reading" | "ready" | "failed";
  error: string | null;
  created_at: number;
}

export interface ChatDocument {
  document_id: string;
  name: string;
  media_type: string;
  pages: number;
}

export interface Passage {
  document_id: string;
  name: string;
  page: number;
  text: string;
}

export function recordOf(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    name: row.name,
    media_type: row.media_type,
    bytes: row.bytes,
    pages: row.pages,
    status: row.status,
    ...(row.error ? { error: JSON.parse(row.error) as DocumentRecord["error"] } : {}),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** A word in this many chunks or more is too common to rank by (DocumentStore.bestChunks). */
export const COMMON_CHUNKS = 1000;

export class DocumentStore {
  /** Prepared once: a 500-page document stores a page per worker message. */
  private readonly insertPage;

  constructor(private readonly db: Db) {
    this.insertPage = db.prepare<[string, number, string | null, string]>(
      "INSERT OR REPLACE INTO document_pages (document_id, page, heading, text) VALUES (?, ?, ?, ?)",
    );
  }

  insert(row: DocumentRow): void {
    this.db
      .prepare(
        "INSERT INTO documents (id, owner, name, media_type, bytes, pages, status, error, created_at) VALUES (@id, @owner, @name, @media_type, @bytes, @pages, @status, @error, @created_at)",
      )
      .run(row);
  }

  get(id: string, owner: string): DocumentRow | undefined {
    return this.db
      .prepare<[string, string], DocumentRow>("SELECT * FROM documents WHERE id = ? AND owner = ?")
      .get(id, owner);
  }

  byId(id: string): DocumentRow | undefined {
    return this.db.prepare<[string], DocumentRow>("SELECT * FROM documents WHERE id = ?").get(id);
  }

  list(owner: string): DocumentRow[] {
    return this.db
      .prepare<[string], DocumentRow>("SELECT * FROM documents WHERE owner = ? ORDER BY created_at DESC, id")
      .all(owner);
  }

  setStatus(id: string, status: DocumentRow["status"], pages: number, error?: DocumentRecord["error"]): void {
    this.db
      .prepare("UPDATE documents SET status = ?, pages = ?, error = ? WHERE id = ?")
      .run(status, pages, error ? JSON.stringify(error) : null, id);
  }

  addPage(id: string, section: Section): void {
    this.insertPage.run(id, section.page, section.heading ?? null, section.text);
  }

  page(id: string, page: number): Section | undefined {
    return this.db
      .prepare<[string, number], { page: number; heading: string | null; text: string }>(
        "SELECT page, heading, text FROM document_pages WHERE document_id = ? AND page = ?",
      )
      .get(id, page) as Section | undefined;
  }

  hasText(id: string): boolean {
    return (
      this.db
        .prepare<[string], { found: number }>(
          "SELECT 1 AS found FROM document_pages WHERE document_id = ? AND trim(text) != '' LIMIT 1",
        )
        .get(id) !== undefined
    );
  }

  delete(id: string): void {
    this.db.prepare("DELETE FROM document_pages WHERE document_id = ?").run(id);
    this.db.prepare("DELETE FROM documents WHERE id = ?").run(id);
  }

  /** Copies a ready document into the chat (its pages, and its chunks indexed), once. */
  attach(sessionId: string, row: DocumentRow, at: number): void {
    const exists = this.db
      .prepare("SELECT 1 FROM chat_documents WHERE session_id = ? AND document_id = ?")
      .get(sessionId, row.id);
    if (exists) return;
    this.db
      .prepare(
        "INSERT INTO chat_documents (session_id, document_id, name, media_type, pages, attached_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(sessionId, row.id, row.name, row.media_type, row.pages, at);
    this.db
      .prepare(
        "INSERT INTO chat_document_pages (session_id, document_id, page, heading, text) SELECT ?, document_id, page, heading, text FROM document_pages WHERE document_id = ?",
      )
      .run(sessionId, row.id);
    const insertChunk = this.db.prepare<[string, string, number, string]>(
      "INSERT INTO chat_document_chunks (session_id, document_id, page, text) VALUES (?, ?, ?, ?)",
    );
    const indexChunk = this.db.prepare<[number | bigint, string]>(
      "INSERT INTO chat_document_fts (rowid, text) VALUES (?, ?)",
    );
    const pages = this.db
      .prepare<[string], { page: number; text: string }>(
        "SELECT page, text FROM document_pages WHERE document_id = ? ORDER BY page",
      )
      .all(row.id);
    for (const chunk of chunksOf(pages)) {
      const { lastInsertRowid } = insertChunk.run(sessionId, row.id, chunk.page, chunk.text);
      indexChunk.run(lastInsertRowid, chunk.text);
    }
  }

  chatDocuments(sessionId: string): ChatDocument[] {
    return this.db
      .prepare<[string], ChatDocument>(
        "SELECT document_id, name, media_type, pages FROM chat_documents WHERE session_id = ? ORDER BY attached_at, document_id",
      )
      .all(sessionId);
  }

  chatPage(sessionId: string, documentId: string, page: number): Section | undefined {
    return this.db
      .prepare<[string, string, number], Section>(
        "SELECT page, heading, text FROM chat_document_pages WHERE session_id = ? AND document_id = ? AND page = ?",
      )
      .get(sessionId, documentId, page);
  }

  /** The pages of the chat's documents (all of them, or the first `limit`), in document and page order. */
  chatPages(sessionId: string, limit = -1): Passage[] {
    return this.db
      .prepare<[string, number], Passage>(
        "SELECT p.document_id, d.name, p.page, p.text FROM chat_document_pages p JOIN chat_documents d USING (session_id, document_id) WHERE p.session_id = ? ORDER BY d.attached_at, p.document_id, p.page LIMIT ?",
      )
      .all(sessionId, limit);
  }

  /** How long the chat's documents' text is, in characters, without reading it. */
  chatTextLength(sessionId: string): number {
    return (
      this.db
        .prepare<[string], { chars: number | null }>(
          "SELECT sum(length(text)) AS chars FROM chat_document_pages WHERE session_id = ?",
        )
        .get(sessionId)?.chars ?? 0
    );
  }

  /**
   * The chat's chunks that best match any of `words`, best first (BM25). Words found in COMMON_CHUNKS chunks or more
   * (a count that stops there) are left out of the ranking: they say little of which chunk answers, and ranking every
   * chunk holding them cost hundreds of milliseconds over 100,000 chunks. When every word is that common, the first
   * chunks holding any of them are given unranked.
   */
  bestChunks(sessionId: string, words: readonly string[], limit: number): Passage[] {
    const quoted = words.map((word) => `"${word.replaceAll('"', '""')}"`);
    const rare = quoted.filter((word) => this.chunksHolding(word) < COMMON_CHUNKS);
    const ranked = rare.length > 0;
    return this.db
      .prepare<[string, string, number], Passage>(
        `SELECT c.document_id, d.name, c.page, c.text FROM chat_document_fts f
         JOIN chat_document_chunks c ON c.id = f.rowid
         JOIN chat_documents d ON d.session_id = c.session_id AND d.document_id = c.document_id
         WHERE chat_document_fts MATCH ? AND c.session_id = ? ${ranked ? "ORDER BY bm25(chat_document_fts)" : ""} LIMIT ?`,
      )
      .all((ranked ? rare : quoted).join(" OR "), sessionId, limit);
  }

  /** Chunks (of every chat) holding `word`, counted up to COMMON_CHUNKS. */
  private chunksHolding(word: string): number {
    return (
      this.db
        .prepare<[string, number], { n: number }>(
          "SELECT count(*) AS n FROM (SELECT rowid FROM chat_document_fts WHERE chat_document_fts MATCH ? LIMIT ?)",
        )
        .get(word, COMMON_CHUNKS)?.n ?? 0
    );
  }

  /** The chat's copies go with the chat (docs/documents.md "Deleting"). */
  forgetChat(sessionId: string): void {
    const ids = this.db
      .prepare<[string], { id: number; text: string }>("SELECT id, text FROM chat_document_chunks WHERE session_id = ?")
      .all(sessionId);
    const unindex = this.db.prepare(
      "INSERT INTO chat_document_fts (chat_document_fts, rowid, text) VALUES ('delete', ?, ?)",
    );
    for (const chunk of ids) unindex.run(chunk.id, chunk.text);
    this.db.prepare("DELETE FROM chat_document_chunks WHERE session_id = ?").run(sessionId);
    this.db.prepare("DELETE FROM chat_document_pages WHERE session_id = ?").run(sessionId);
    this.db.prepare("DELETE FROM chat_documents WHERE session_id = ?").run(sessionId);
  }
}
