// A chat's copy of its documents as an export carries it and an import restores it (docs/documents.md "Export and
// import"): each document's name, type and pages with their headings. On import the chunks and their FTS5 index are
// made again from the pages, as attaching a document does, so the imported chat retrieves and its citations open.
// Vectors are not carried (they are a model's, and can be made again): an imported chat retrieves by BM25.
import type { Db } from "../db/database.ts";
import { chunksOf } from "./chunks.ts";

export interface ChatDocumentCopy {
  document_id: string;
  name: string;
  media_type: string;
  pages: Array<{ page: number; heading?: string | undefined; text: string }>;
}

/** Cuts `pages` of a chat's document into chunks, stored and indexed; `onChunk` learns each chunk's row. */
export function indexChunks(
  db: Db,
  sessionId: string,
  documentId: string,
  pages: readonly { page: number; text: string }[],
  onChunk: (chunkId: number, page: number) => void = () => undefined,
): void {
  const insertChunk = db.prepare<[string, string, number, string]>(
    "INSERT INTO chat_document_chunks (session_id, document_id, page, text) VALUES (?, ?, ?, ?)",
  );
  const indexChunk = db.prepare<[number | bigint, string]>("INSERT INTO chat_document_fts (rowid, text) VALUES (?, ?)");
  for (const chunk of chunksOf(pages)) {
    const { lastInsertRowid } = insertChunk.run(sessionId, documentId, chunk.page, chunk.text);
    indexChunk.run(lastInsertRowid, chunk.text);
    onChunk(Number(lastInsertRowid), chunk.page);
  }
}

export class ChatDocumentCopies {
  constructor(private readonly db: Db) {}

  /** The chat's documents with their pages, in the order they were attached. */
  of(sessionId: string): ChatDocumentCopy[] {
    const documents = this.db
      .prepare<[string], Omit<ChatDocumentCopy, "pages">>(
        "SELECT document_id, name, media_type FROM chat_documents WHERE session_id = ? ORDER BY attached_at, document_id",
      )
      .all(sessionId);
    const pages = this.db.prepare<[string, string], { page: number; heading: string | null; text: string }>(
      "SELECT page, heading, text FROM chat_document_pages WHERE session_id = ? AND document_id = ? ORDER BY page",
    );
    return documents.map((document) => ({
      ...document,
      pages: pages
        .all(sessionId, document.document_id)
        .map(({ page, heading, text }) => (heading === null ? { page, text } : { page, heading, text })),
    }));
  }

  /** Stores `copy` as the chat's (a chat being imported: it has no documents yet), its chunks indexed. */
  restore(sessionId: string, copy: ChatDocumentCopy, at: number): void {
    this.db
      .prepare(
        "INSERT INTO chat_documents (session_id, document_id, name, media_type, pages, attached_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(sessionId, copy.document_id, copy.name, copy.media_type, copy.pages.length, at);
    const insertPage = this.db.prepare(
      "INSERT INTO chat_document_pages (session_id, document_id, page, heading, text) VALUES (?, ?, ?, ?, ?)",
    );
    for (const { page, heading, text } of copy.pages)
      insertPage.run(sessionId, copy.document_id, page, heading ?? null, text);
    indexChunks(this.db, sessionId, copy.document_id, copy.pages);
  }
}
