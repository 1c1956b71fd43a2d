// A library document's chunks embedded as its pages are read (docs/documents.md "Hybrid retrieval"), by every
// embedding model the agents name. Pages are queued by number (their text is read back from the store, so a fast
// reader never piles a document's text up in memory), cut into the chunks a chat's copy will have, and sent in
// batches of EMBEDDING_BATCH, one batch of a document at a time and at most EMBEDDING_SLOTS requests in flight across
// the server. A model that fails (down, or an answer refused) keeps no vector of the document: its chats retrieve by
// BM25. The document is ready once its last page is embedded.
import type { FastifyBaseLogger } from "fastify";
import { chunksOf } from "./chunks.ts";
import { EMBEDDING_BATCH, embed, type EmbeddingEndpoint } from "./embedder.ts";
import type { DocumentStore } from "./store.ts";

/** Embedding requests in flight across the server: a local model serves one or two at a time. */
export const EMBEDDING_SLOTS = 2;

interface PendingChunk {
  page: number;
  part: number;
  text: string;
}

/** A counting semaphore: at most `size` holders at once, the others wait in order. */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

export interface EmbeddingParts {
  store: DocumentStore;
  slots: Slots;
  log: FastifyBaseLogger;
}

export class DocumentEmbedding {
  private readonly queue: number[] = [];
  private readonly failed = new Set<string>();
  private readonly controller = new AbortController();
  private running: Promise<void> | undefined;
  private embeddedPages = 0;

  constructor(
    private readonly documentId: string,
    private readonly endpoints: readonly EmbeddingEndpoint[],
    private readonly parts: EmbeddingParts,
    /** Told the number of pages embedded so far, after each batch. */
    private readonly onPages: (embedded: number) => void,
  ) {}

  /** A page was read and stored: its chunks are embedded in turn. */
  pageRead(page: number): void {
    this.queue.push(page);
    this.running ??= this.drain();
  }

  /** Resolves once every page read is embedded (or its models failed). */
  async finish(): Promise<void> {
    this.running ??= this.drain();
    await this.running;
  }

  cancel(): void {
    this.controller.abort();
    this.queue.length = 0;
  }

  private async drain(): Promise<void> {
    const pages = this.pages();
    for (let batch = this.nextBatch(pages); batch.chunks.length > 0 || batch.pages > 0; batch = this.nextBatch(pages)) {
      if (this.controller.signal.aborted) return;
      if (batch.chunks.length > 0) await this.embedBatch(batch.chunks);
      this.embeddedPages += batch.pages;
      if (batch.pages > 0) this.onPages(this.embeddedPages);
    }
    this.running = undefined;
    // Pages queued while the last batch was out start the next run.
    if (this.queue.length > 0 && !this.controller.signal.aborted) {
      this.running = this.drain();
      await this.running;
    }
  }

  /** The queued pages' chunks, one page at a time, each with its place in its page; ends when the queue is empty. */
  private *pages(): Generator<PendingChunk | "page-end"> {
    for (let page = this.queue.shift(); page !== undefined; page = this.queue.shift()) {
      const text = this.parts.store.pageText(this.documentId, page) ?? "";
      let part = 0;
      for (const chunk of chunksOf([{ page, text }])) yield { page, part: part++, text: chunk.text };
      yield "page-end";
    }
  }

  /** Up to EMBEDDING_BATCH chunks, and how many pages end within them. */
  private nextBatch(source: Generator<PendingChunk | "page-end">): { chunks: PendingChunk[]; pages: number } {
    const chunks: PendingChunk[] = [];
    let pages = 0;
    while (chunks.length < EMBEDDING_BATCH) {
      const next = source.next();
      if (next.done) break;
      if (next.value === "page-end") pages++;
      else chunks.push(next.value);
    }
    return { chunks, pages };
  }

  private async embedBatch(chunks: readonly PendingChunk[]): Promise<void> {
    for (const endpoint of this.endpoints) {
      if (this.failed.has(endpoint.key)) continue;
      try {
        const texts = chunks.map((chunk) => chunk.text);
        const dimensions = this.parts.store.vectorDimensions(endpoint.key);
        const vectors = await this.parts.slots.run(() => embed(endpoint, texts, dimensions, this.controller.signal));
        if (this.controller.signal.aborted) return;
        this.parts.store.addVectors(
          this.documentId,
          endpoint.key,
          chunks.map((chunk, i) => ({ page: chunk.page, part: chunk.part, vector: vectors[i]! })),
        );
      } catch (error) {
        if (this.controller.signal.aborted) return;
        this.failed.add(endpoint.key);
        this.parts.store.deleteVectors(this.documentId, endpoint.key);
        this.parts.log.warn(
          { document_id: this.documentId, model: endpoint.key, err: error },
          "document not embedded: its chats retrieve by BM25 only",
        );
      }
    }
  }
}
