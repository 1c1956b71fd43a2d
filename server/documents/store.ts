// The documents' rows (docs/documents.md "Storage"): the library (documents, document_pages) and each chat's copy
// (chat_documents, chat_document_pages, chat_document_chunks with its FTS5 index). SQL lives here, and for a chat's
// copy as export and import move it, in chat-copy.ts.
import type { Db } from "../db/database.ts";
import type { DocumentRecord } from "../../client/wire/events.ts";
import type { Section } from "./extract-messages.ts";
import { indexChunks } from "./chat-copy.ts";
import { ChatVectorIndex, type VectorRow } from "./vector-search.ts";
import { toBlob } from "./vectors.ts";

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

/** A chunk of a chat's copy, with its row (what BM25 and vector rankings are fused by). */
export interface ChunkPassage extends Passage {
  chunk_id: number;
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
  private readonly insertVector;
  /** The chats' vectors in memory for the vector side of retrieval; told when a chat's documents change. */
  readonly vectors: ChatVectorIndex;

  constructor(private readonly db: Db) {
    this.insertPage = db.prepare<[string, number, string | null, string]>(
      "INSERT OR REPLACE INTO document_pages (document_id, page, heading, text) VALUES (?, ?, ?, ?)",
    );
    this.insertVector = db.prepare<[string, string, number, number, Buffer]>(
      "INSERT OR REPLACE INTO document_vectors (document_id, model, page, part, vector) VALUES (?, ?, ?, ?, ?)",
    );
    this.vectors = new ChatVectorIndex({
      count: (sessionId, model) => this.chatVectorCount(sessionId, model),
      rows: (sessionId, model) => this.chatVectorRows(sessionId, model),
    });
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

  /** Documents left `reading` (by a run that stopped before they were read). */
  unfinished(): DocumentRow[] {
    return this.db
      .prepare<[], DocumentRow>("SELECT * FROM documents WHERE status = 'reading' ORDER BY created_at, id")
      .all();
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

  /** The text of a page of the library's document (for embedding its chunks), if stored. */
  pageText(id: string, page: number): string | undefined {
    return this.page(id, page)?.text;
  }

  /** Keeps vectors of the document's chunks (each named by its page and its place in the page) for one model. */
  addVectors(
    id: string,
    model: string,
    vectors: readonly { page: number; part: number; vector: Float32Array }[],
  ): void {
    for (const { page, part, vector } of vectors) this.insertVector.run(id, model, page, part, toBlob(vector));
  }

  /** Drops one model's vectors of a document (an embedding that failed part-way keeps none). */
  deleteVectors(id: string, model: string): void {
    this.db.prepare("DELETE FROM document_vectors WHERE document_id = ? AND model = ?").run(id, model);
  }

  /** The length of the vectors kept for `model`, if any are (every vector of a model has one length). */
  vectorDimensions(model: string): number | undefined {
    const row =
      this.db
        .prepare<[string], { bytes: number }>(
          "SELECT length(vector) AS bytes FROM document_vectors WHERE model = ? LIMIT 1",
        )
        .get(model) ??
      this.db
        .prepare<[string], { bytes: number }>(
          "SELECT length(vector) AS bytes FROM chat_document_vectors WHERE model = ? LIMIT 1",
        )
        .get(model);
    return row ? row.bytes / 4 : undefined;
  }

  delete(id: string): void {
    this.db.prepare("DELETE FROM document_vectors WHERE document_id = ?").run(id);
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
    const pages = this.db
      .prepare<[string], { page: number; text: string }>(
        "SELECT page, text FROM document_pages WHERE document_id = ? ORDER BY page",
      )
      .all(row.id);
    const copyVector = this.copyVectorStatement(row.id);
    let part = 0;
    let previousPage = -1;
    indexChunks(this.db, sessionId, row.id, pages, (chunkId, page) => {
      part = page === previousPage ? part + 1 : 0;
      previousPage = page;
      copyVector(sessionId, chunkId, page, part);
    });
    this.vectors.forget(sessionId);
  }

  /** Copies the vectors (of every model) of a library chunk, found by page and place, to the chat's chunk row. */
  private copyVectorStatement(documentId: string) {
    const models = this.db
      .prepare<[string], { model: string }>("SELECT DISTINCT model FROM document_vectors WHERE document_id = ?")
      .all(documentId)
      .map((row) => row.model);
    const copy = this.db.prepare<[string, number, string, string, number, number]>(
      `INSERT INTO chat_document_vectors (session_id, model, chunk_id, vector)
       SELECT ?, model, ?, vector FROM document_vectors WHERE document_id = ? AND model = ? AND page = ? AND part = ?`,
    );
    return (sessionId: string, chunkId: number, page: number, part: number) => {
      for (const model of models) copy.run(sessionId, chunkId, documentId, model, page, part);
    };
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
  bestChunks(sessionId: string, words: readonly string[], limit: number): ChunkPassage[] {
    const quoted = words.map((word) => `"${word.replaceAll('"', '""')}"`);
    const rare = quoted.filter((word) => this.chunksHolding(word) < COMMON_CHUNKS);
    const ranked = rare.length > 0;
    return this.db
      .prepare<[string, string, number], ChunkPassage>(
        `SELECT c.id AS chunk_id, c.document_id, d.name, c.page, c.text FROM chat_document_fts f
         JOIN chat_document_chunks c ON c.id = f.rowid
         JOIN chat_documents d ON d.session_id = c.session_id AND d.document_id = c.document_id
         WHERE chat_document_fts MATCH ? AND c.session_id = ? ${ranked ? "ORDER BY bm25(chat_document_fts)" : ""} LIMIT ?`,
      )
      .all((ranked ? rare : quoted).join(" OR "), sessionId, limit);
  }

  /** The chat's chunks of these rows, in the order given (rows not of the chat are left out). */
  chunksByIds(sessionId: string, ids: readonly number[]): ChunkPassage[] {
    const get = this.db.prepare<[number, string], ChunkPassage>(
      `SELECT c.id AS chunk_id, c.document_id, d.name, c.page, c.text FROM chat_document_chunks c
       JOIN chat_documents d ON d.session_id = c.session_id AND d.document_id = c.document_id
       WHERE c.id = ? AND c.session_id = ?`,
    );
    return ids.flatMap((id) => get.get(id, sessionId) ?? []);
  }

  /** Whether the chat has vectors of `model` (its documents were embedded by it before they were attached). */
  hasChatVectors(sessionId: string, model: string): boolean {
    return (
      this.db
        .prepare("SELECT 1 FROM chat_document_vectors WHERE session_id = ? AND model = ? LIMIT 1")
        .get(sessionId, model) !== undefined
    );
  }

  private chatVectorCount(sessionId: string, model: string): number {
    return (
      this.db
        .prepare<[string, string], { n: number }>(
          "SELECT count(*) AS n FROM chat_document_vectors WHERE session_id = ? AND model = ?",
        )
        .get(sessionId, model)?.n ?? 0
    );
  }

  private chatVectorRows(sessionId: string, model: string): IterableIterator<VectorRow> {
    return this.db
      .prepare<[string, string], VectorRow>(
        "SELECT chunk_id, vector FROM chat_document_vectors WHERE session_id = ? AND model = ?",
      )
      .iterate(sessionId, model);
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
    this.db.prepare("DELETE FROM chat_document_vectors WHERE session_id = ?").run(sessionId);
    this.db.prepare("DELETE FROM chat_document_chunks WHERE session_id = ?").run(sessionId);
    this.db.prepare("DELETE FROM chat_document_pages WHERE session_id = ?").run(sessionId);
    this.db.prepare("DELETE FROM chat_documents WHERE session_id = ?").run(sessionId);
    this.vectors.forget(sessionId);
  }
}
