// The vector side of hybrid retrieval (docs/documents.md "Hybrid retrieval"): the chunks of a chat whose vectors are
// nearest the question's, by brute force over unit vectors (a dot product each, exact). A chat's vectors of one model
// are kept in memory one after another in a WebAssembly memory scored with SIMD (dot-kernel.ts), so a turn does not
// read 100,000 BLOBs; the cache is bounded in bytes and drops the chat used longest ago. A chat whose vectors alone pass the bound is scored straight from its rows,
// kept nowhere. An entry is dropped when the chat's documents change (DocumentStore.attach, forgetChat).
import { VectorMatrix } from "./dot-kernel.ts";
import { dotAt, fromBlob } from "./vectors.ts";

/** Bytes of vectors kept in memory for all chats: 100,000 chunks of 384 dimensions take 154 MB. */
export const VECTOR_CACHE_BYTES = 256 * 1024 * 1024;

export interface VectorRow {
  chunk_id: number;
  vector: Buffer;
}

export interface VectorRows {
  count(sessionId: string, model: string): number;
  rows(sessionId: string, model: string): Iterable<VectorRow>;
}

interface Matrix {
  /** The chunk of each row; rows past its length (skipped while loading) are zeros, never candidates. */
  ids: Float64Array;
  vectors: VectorMatrix;
}

export interface Nearest {
  chunk_id: number;
  similarity: number;
}

export class ChatVectorIndex {
  private readonly cache = new Map<string, Matrix>();
  private cachedBytes = 0;

  constructor(
    private readonly source: VectorRows,
    private readonly budget = VECTOR_CACHE_BYTES,
  ) {}

  /**
   * The `limit` chunks nearest `query`, nearest first. Only chunks the query points towards (similarity above 0) are
   * candidates: a vector orthogonal or opposite to the question's says the chunk is about something else.
   */
  nearest(sessionId: string, model: string, query: Float32Array, limit: number): Nearest[] {
    const best = new TopK(limit);
    const matrix = this.matrix(sessionId, model, query.length);
    if (matrix) {
      const scores = matrix.vectors.scores(query);
      for (let row = 0; row < matrix.ids.length; row++) best.offer(matrix.ids[row]!, scores[row]!);
    } else {
      for (const row of this.source.rows(sessionId, model)) {
        const vector = fromBlob(row.vector);
        if (vector.length === query.length) best.offer(row.chunk_id, dotAt(query, vector, 0));
      }
    }
    return best.sorted();
  }

  /** Drops what is kept of the chat (its documents changed, or it was deleted). */
  forget(sessionId: string): void {
    for (const [key, matrix] of this.cache)
      if (key.startsWith(`${sessionId}\u0000`)) {
        this.cache.delete(key);
        this.cachedBytes -= matrix.vectors.byteLength;
      }
  }

  /** The chat's vectors of `model` in memory, loaded on first use; undefined when they would not fit the budget. */
  private matrix(sessionId: string, model: string, dimensions: number): Matrix | undefined {
    const key = `${sessionId}\u0000${model}`;
    const kept = this.cache.get(key);
    if (kept) {
      // Used now: to the end of the Map's order, the last to be dropped.
      this.cache.delete(key);
      this.cache.set(key, kept);
      return kept.vectors.dimensions === dimensions ? kept : undefined;
    }
    const count = this.source.count(sessionId, model);
    const bytes = VectorMatrix.bytesFor(count, dimensions);
    if (bytes > this.budget) return undefined;
    const matrix = this.load(sessionId, model, count, dimensions);
    for (const [oldest, dropped] of this.cache) {
      if (this.cachedBytes + bytes <= this.budget) break;
      this.cache.delete(oldest);
      this.cachedBytes -= dropped.vectors.byteLength;
    }
    this.cache.set(key, matrix);
    this.cachedBytes += matrix.vectors.byteLength;
    return matrix;
  }

  private load(sessionId: string, model: string, count: number, dimensions: number): Matrix {
    const ids = new Float64Array(count);
    const vectors = new VectorMatrix(count, dimensions);
    let row = 0;
    for (const { chunk_id, vector } of this.source.rows(sessionId, model)) {
      if (row === count) break; // rows added since the count wait for the next load
      if (vector.byteLength !== dimensions * 4) continue; // another length than the question's: not comparable
      ids[row] = chunk_id;
      vectors.setRow(row, vector);
      row++;
    }
    return { ids: ids.subarray(0, row), vectors };
  }
}

/** The `limit` best (id, score) pairs seen, scores above 0 only; a sorted array, as `limit` is small. */
class TopK {
  private readonly items: Nearest[] = [];

  constructor(private readonly limit: number) {}

  offer(chunk_id: number, similarity: number): void {
    if (!(similarity > 0)) return;
    const items = this.items;
    if (items.length === this.limit && similarity <= items[items.length - 1]!.similarity) return;
    let at = items.length;
    while (at > 0 && items[at - 1]!.similarity < similarity) at--;
    items.splice(at, 0, { chunk_id, similarity });
    if (items.length > this.limit) items.pop();
  }

  sorted(): Nearest[] {
    return [...this.items];
  }
}
