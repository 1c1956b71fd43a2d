// A person's documents (docs/documents.md): each library is one person's (`owner` is a person id), stored as uploaded, read in a worker, kept as text by page or section, and
// copied into a chat when a message attaches one. Every change of a document's state is published as
// `document_updated`.
import { randomUUID } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DocumentRecord } from "../../client/wire/events.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { PRIVATE_FILE_MODE, makePrivateDir } from "../db/file-modes.ts";
import type { Transactor } from "../db/transactor.ts";
import { DomainError, invalid, notFound, unprocessable } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import type { DocumentsConfig } from "./config.ts";
import { detectMediaType, PDF } from "./detect.ts";
import { DEFAULT_OCR } from "./config.ts";
import { PageOcr, tesseractAvailable } from "./ocr.ts";
import type { FastifyBaseLogger } from "fastify";
import { DocumentEmbedding, EMBEDDING_SLOTS, Slots } from "./document-embedding.ts";
import type { EmbeddingEndpoint } from "./embedder.ts";
import { progressGate } from "./progress.ts";
import { readFilePart } from "./file-part.ts";
import { DOCUMENT_FILE_PART_BYTES } from "../../client/wire/routes/documents.ts";
import { UnreadableDocument, type Reading, type ScanReader } from "./reader.ts";
import { Readers, type Place } from "./reader-pool.ts";
import { DocumentStore, recordOf, type ChatDocument } from "./store.ts";

export const DOCUMENTS_DIR = "documents";

export interface DocumentServiceParts {
  db: Db;
  transactor: Transactor;
  events: EventStore;
  clock: Clock;
  dataDir: string;
  config: () => DocumentsConfig;
  /** Removes deleted text from every file of the data folder (checkpoints and truncates the WAL). */
  scrub: () => Promise<unknown>;
  /** The embedding models the agents name now: a document read is embedded by each (docs/documents.md). */
  embeddings: () => EmbeddingEndpoint[];
  /** The tesseract program OCR runs (docs/documents.md "OCR"); OCR is off where it does not run. */
  tesseract: string;
  log: FastifyBaseLogger;
}

/** A document being read, and embedded when agents name embedding models. */
interface Underway {
  reading: Reading;
  embedding: DocumentEmbedding | undefined;
  /** Whether pages with no text were read by OCR (what a scan's failure says). */
  ocr: boolean;
}

export class DocumentService {
  readonly store: DocumentStore;
  private readonly readings = new Map<string, Underway>();

  /** The reading workers, bounded, and the documents waiting for one (read by tests to see the bound). */
  readonly readers = new Readers();
  private readonly embeddingSlots = new Slots(EMBEDDING_SLOTS);
  private readonly ocr: PageOcr;

  constructor(private readonly parts: DocumentServiceParts) {
    this.store = new DocumentStore(parts.db);
    this.ocr = new PageOcr(parts.tesseract, parts.clock);
    makePrivateDir(join(parts.dataDir, DOCUMENTS_DIR));
  }

  /**
   * Stores a file and reads it once a reading worker is free (server/documents/reader-pool.ts); resolves once its page
   * count is known and allowed. Not async: `bytes` is written to the file before the wait, and nothing of this call
   * holds it after, so a document waiting its turn waits as its stored file, not in memory.
   */
  add(owner: string, name: string, bytes: Uint8Array, declared: string | undefined): Promise<DocumentRecord> {
    const media_type = detectMediaType(bytes, name, declared);
    // The place is taken here, in the turn the caller checked for room (and took its upload), not after an await: a
    // burst of documents that all found room while a first PDF waited for tesseract's check would else be refused
    // after their uploads were taken (docs/documents.md invariant 27).
    const place = this.readers.reserve(owner);
    const id = `doc_${randomUUID().replaceAll("-", "")}`;
    const file = join(this.parts.dataDir, DOCUMENTS_DIR, id);
    try {
      writeFileSync(file, bytes, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      place.release();
      throw error;
    }
    return this.read({ id, owner, name, media_type, bytes: bytes.length }, file, place);
  }

  /** Refuses (409 too_many_documents_reading) a person who may not add a document now: checked before an upload is taken. */
  requireRoom(owner: string): void {
    this.readers.requireRoom(owner);
  }

  private async read(
    added: Pick<DocumentRecord, "id" | "name" | "media_type" | "bytes"> & { owner: string },
    file: string,
    place: Place,
  ): Promise<DocumentRecord> {
    const { id, name, media_type } = added;
    let scans: ScanReader | undefined;
    let reading: Reading | undefined;
    let pages: number;
    try {
      scans = media_type === PDF ? await this.scanReader(id) : undefined;
      reading = place.begin({ file, mediaType: media_type, now: () => this.parts.clock.now(), scans });
      pages = await reading.count;
    } catch (error) {
      if (!reading) place.release();
      rmSync(file, { force: true });
      throw unreadable(error);
    }
    const { max_pages } = this.parts.config();
    if (pages > max_pages) {
      reading.cancel();
      rmSync(file, { force: true });
      throw unprocessable("too_many_pages", `${name} has ${pages} pages; documents.max_pages is ${max_pages}`, {
        pages,
        max_pages,
      });
    }
    const row = { ...added, pages, status: "reading" as const, error: null, created_at: this.parts.clock.now() };
    try {
      this.store.insert(row);
    } catch (error) {
      // Not stored (the disk full): the counted reading waits for a go that will never come; ended, it frees its
      // worker and its place.
      reading.cancel();
      rmSync(file, { force: true });
      throw error;
    }
    this.proceed(id, reading, pages, scans !== undefined);
    return recordOf(row);
  }

  /**
   * On start: reads again, from its stored file, every document a previous run left `reading` (stopped by a shutdown,
   * or cut off by a crash), each in its turn after those added now; and removes the files of documents that never got
   * their row (that run stopped while they waited for their count).
   */
  resumeReadings(): void {
    const dir = join(this.parts.dataDir, DOCUMENTS_DIR);
    for (const name of readdirSync(dir)) if (!this.store.byId(name)) rmSync(join(dir, name), { force: true });
    for (const row of this.store.unfinished()) void this.readAgain(row.id, row.owner, row.media_type);
  }

  private async readAgain(id: string, owner: string, media_type: string): Promise<void> {
    const file = join(this.parts.dataDir, DOCUMENTS_DIR, id);
    try {
      const scans = media_type === PDF ? await this.scanReader(id) : undefined;
      const now = () => this.parts.clock.now();
      const reading = this.readers.start(owner, { file, mediaType: media_type, now, scans }, { resumed: true });
      const pages = await reading.count;
      if (!this.store.byId(id)) return reading.cancel(); // deleted while it waited
      this.proceed(id, reading, pages, scans !== undefined);
    } catch (error) {
      if (error instanceof DomainError || !this.store.byId(id)) return; // shutting down again: read at the next start
      const { reason, message } =
        error instanceof UnreadableDocument ? error : { reason: "corrupt" as const, message: String(error) };
      this.markUnreadable(id, reason, message);
    }
  }

  list(owner: string): DocumentRecord[] {
    return this.store.list(owner).map(recordOf);
  }

  get(owner: string, id: string): DocumentRecord {
    return recordOf(this.require(owner, id));
  }

  text(owner: string, id: string, page: number): { page: number; heading?: string; text: string } {
    const row = this.require(owner, id);
    return pageOrRefuse(this.store.page(id, page), row.pages, page);
  }

  /** Removes the document for good: its reading, file, text; chats keep their own copies (docs/documents.md). */
  async delete(owner: string, id: string): Promise<void> {
    this.require(owner, id);
    this.stop(id);
    this.parts.transactor.run(() => this.store.delete(id));
    rmSync(join(this.parts.dataDir, DOCUMENTS_DIR, id), { force: true });
    await this.parts.scrub();
  }

  /** Copies ready documents into the chat a message attaches them to; refuses one that is not ready or not theirs. */
  attach(owner: string, sessionId: string, documentIds: readonly string[], where: (i: number) => string): void {
    const rows = documentIds.map((id, index) => {
      const row = this.store.get(id, owner);
      if (!row) throw notFound("document_not_found", `${where(index)}: no document ${id}`);
      if (row.status !== "ready")
        throw invalid(
          "invalid_input",
          `${where(index)}: ${row.name} is ${row.status === "reading" ? "still being read" : "unreadable"}`,
        );
      return row;
    });
    for (const row of rows) this.store.attach(sessionId, row, this.parts.clock.now());
  }

  chatDocuments(sessionId: string): ChatDocument[] {
    return this.store.chatDocuments(sessionId);
  }

  chatText(sessionId: string, documentId: string, page: number): { page: number; heading?: string; text: string } {
    const document = this.store.chatDocuments(sessionId).find((d) => d.document_id === documentId);
    if (!document) throw notFound("document_not_found", `this chat has no document ${documentId}`);
    return pageOrRefuse(this.store.chatPage(sessionId, documentId, page), document.pages, page);
  }

  /**
   * A part of the file a chat's document was read from (docs/documents.md "The original file"): while the library
   * keeps it, and while the person whose library holds it may read the chat (`ownerReads`), so a chat that names a
   * document it was never given (an imported record naming another library's id) gets no file.
   */
  async chatFile(
    sessionId: string,
    documentId: string,
    part: number,
    ownerReads: (owner: string) => boolean,
  ): Promise<{ media_type: string; bytes: Buffer }> {
    const copy = this.store.chatDocuments(sessionId).find((d) => d.document_id === documentId);
    if (!copy) throw notFound("document_not_found", `this chat has no document ${documentId}`);
    const row = this.store.byId(documentId);
    const file = join(this.parts.dataDir, DOCUMENTS_DIR, documentId);
    const offset = part * DOCUMENT_FILE_PART_BYTES;
    const bytes = row && ownerReads(row.owner) ? await readFilePart(file, offset, DOCUMENT_FILE_PART_BYTES) : undefined;
    if (!row || !bytes)
      throw notFound("document_not_found", `the file of ${copy.name} is no longer kept; the chat keeps its text`);
    return { media_type: row.media_type, bytes };
  }

  /** Stops every reading (shutdown). */
  close(): void {
    for (const id of [...this.readings.keys()]) this.stop(id);
    this.readers.close();
  }

  private stop(id: string): void {
    const underway = this.readings.get(id);
    underway?.reading.cancel();
    underway?.embedding?.cancel();
    this.readings.delete(id);
  }

  /** A counted document's pages read from here on, and embedded as they come when agents name embedding models. */
  private proceed(id: string, reading: Reading, pages: number, ocr: boolean): void {
    const underway = { reading, embedding: this.embeddingOf(id, pages), ocr };
    this.readings.set(id, underway);
    reading.proceed(this.hooks(id, underway));
  }

  /** The embedding of a document's chunks as it is read, when agents name embedding models; its pages drive progress. */
  private embeddingOf(id: string, pages: number): DocumentEmbedding | undefined {
    const endpoints = this.parts.embeddings();
    if (endpoints.length === 0) return undefined;
    const worthReporting = progressGate(pages, () => this.parts.clock.now());
    const parts = { store: this.store, slots: this.embeddingSlots, log: this.parts.log };
    return new DocumentEmbedding(id, endpoints, parts, (embedded) => {
      if (worthReporting(embedded)) this.publish(id, { done: embedded, total: pages });
    });
  }

  /** OCR of a PDF's pages with no text, when enabled and tesseract runs here; a page it cannot read stays empty. */
  private async scanReader(id: string): Promise<ScanReader | undefined> {
    const config = this.parts.config().ocr ?? DEFAULT_OCR;
    if (!config.enabled || !(await tesseractAvailable(this.ocr.program))) return undefined;
    return {
      pages: config.max_pages,
      read: (page, image, signal) =>
        this.ocr.recognize(image, config, signal).catch((error: unknown) => {
          if (!signal.aborted)
            this.parts.log.warn({ document: id, page, error: String(error) }, "OCR of a page failed");
          return "";
        }),
    };
  }

  private require(owner: string, id: string) {
    const row = this.store.get(id, owner);
    if (!row) throw notFound("document_not_found", `no document ${id}`);
    return row;
  }

  private publish(id: string, progress?: { done: number; total: number }): void {
    const row = this.store.byId(id);
    if (row)
      // Only the library's person hears of it (docs/people.md "Visibility").
      this.parts.events.publish(
        { type: "document_updated", document: recordOf(row), ...(progress ? { progress } : {}) },
        undefined,
        [row.owner],
      );
  }

  private hooks(id: string, underway: Underway) {
    const { embedding } = underway;
    return {
      page: (section: { page: number; heading?: string; text: string }) => {
        this.store.addPage(id, section);
        embedding?.pageRead(section.page);
      },
      // While pages are embedded, progress counts the pages embedded (DocumentEmbedding's own reports).
      progress: (done: number, total: number) => {
        if (!embedding) this.publish(id, { done, total });
      },
      done: (pages: number) => void this.finish(id, underway, pages),
      failed: (reason: "encrypted" | "corrupt", message: string) => {
        // The reading is over (its worker is kept for the next one); only the embedding is stopped.
        embedding?.cancel();
        this.readings.delete(id);
        this.markUnreadable(id, reason, message);
      },
    };
  }

  private markUnreadable(id: string, reason: "encrypted" | "corrupt", message: string): void {
    this.store.setStatus(id, "failed", 0, {
      code: "document_unreadable",
      reason,
      message: describeUnreadable(reason, message),
    });
    this.publish(id);
  }

  /** Every page read: once they are embedded too, the document is ready (or failed, when no page had text). */
  private async finish(id: string, underway: Underway, pages: number): Promise<void> {
    await underway.embedding?.finish();
    if (this.readings.get(id) !== underway) return; // deleted, or the server closed, meanwhile
    this.readings.delete(id);
    if (this.store.hasText(id)) this.store.setStatus(id, "ready", pages);
    else
      this.store.setStatus(id, "failed", pages, {
        code: "document_unreadable",
        reason: "no_text",
        message: underway.ocr
          ? "no text found: this looks like a scan, and OCR read no words on its pages"
          : "no text found: this looks like a scan (see docs/documents.md for OCR)",
      });
    this.publish(id, { done: pages, total: pages });
  }
}

function pageOrRefuse(
  section: { page: number; heading?: string | null; text: string } | undefined,
  pages: number,
  page: number,
) {
  if (!section) throw notFound("page_not_found", `page ${page} is not a page of this document (it has ${pages})`);
  return { page: section.page, ...(section.heading ? { heading: section.heading } : {}), text: section.text };
}

function describeUnreadable(reason: "encrypted" | "corrupt", message: string): string {
  return reason === "encrypted"
    ? "the document is protected by a password: save a copy without it and attach that"
    : `the document could not be read: ${message}`;
}

function unreadable(error: unknown) {
  if (error instanceof DomainError) return error; // refused before reading: too many waiting, or shutting down
  if (error instanceof UnreadableDocument)
    return unprocessable("document_unreadable", describeUnreadable(error.reason, error.message), {
      reason: error.reason,
    });
  return unprocessable("document_unreadable", `the document could not be read: ${String(error)}`, {
    reason: "corrupt",
  });
}
