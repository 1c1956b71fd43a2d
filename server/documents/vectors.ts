// Embedding vectors as retrieval keeps them (docs/documents.md "Hybrid retrieval"): Float32, scaled to length 1 so a
// dot product is the cosine similarity, stored as a SQLite BLOB of the floats' bytes. A provider's vectors are checked
// before they are kept: a vector of another length than the rest, one with NaN or Infinity, or one of length 0 is
// refused, never stored.

/** More dimensions than any embedding model serves (3,072 is the largest in common use); a longer vector is refused. */
export const MAX_DIMENSIONS = 4096;

/** A provider's answer that cannot be vectors: retrieval falls back to BM25 and says why. */
export class EmbeddingFailure extends Error {}

/** `values` as a unit Float32 vector; refuses a vector of the wrong length, not finite, or of length zero. */
export function unitVector(values: readonly number[], dimensions: number | undefined): Float32Array {
  if (values.length === 0 || values.length > MAX_DIMENSIONS)
    throw new EmbeddingFailure(`a vector has ${values.length} dimensions (at most ${MAX_DIMENSIONS} are taken)`);
  if (dimensions !== undefined && values.length !== dimensions)
    throw new EmbeddingFailure(`a vector has ${values.length} dimensions where the others have ${dimensions}`);
  let sum = 0;
  for (const value of values) sum += value * value;
  if (!Number.isFinite(sum)) throw new EmbeddingFailure("a vector holds a value that is not a finite number");
  if (sum === 0) throw new EmbeddingFailure("a vector is all zeros");
  const scale = 1 / Math.sqrt(sum);
  const vector = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) vector[i] = values[i]! * scale;
  return vector;
}

export function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A stored vector; copied, since a BLOB's bytes need not be aligned for a Float32Array view. */
export function fromBlob(blob: Uint8Array): Float32Array {
  const vector = new Float32Array(blob.byteLength / 4);
  new Uint8Array(vector.buffer).set(blob);
  return vector;
}

/**
 * Dot product of `query` and the vector at `offset` in `matrix` (both unit: the cosine similarity). Four sums at once:
 * over 100,000 vectors of 384 this took 0.6 of the time of one running sum (scripts/bench/documents.ts).
 */
export function dotAt(query: Float32Array, matrix: Float32Array, offset: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  const length = query.length;
  let i = 0;
  for (; i + 3 < length; i += 4) {
    a += query[i]! * matrix[offset + i]!;
    b += query[i + 1]! * matrix[offset + i + 1]!;
    c += query[i + 2]! * matrix[offset + i + 2]!;
    d += query[i + 3]! * matrix[offset + i + 3]!;
  }
  for (; i < length; i++) a += query[i]! * matrix[offset + i]!;
  return a + b + c + d;
}

/** The constant of reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): a rank r adds 1 / (RRF_K + r). */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion of ranked lists of ids (best first, ranks from 1): each id scores the sum of 1 / (k + rank)
 * over the lists holding it. Ties keep the order of first appearance, the first list first.
 */
export function fuse<T>(lists: readonly (readonly T[])[], k = RRF_K): T[] {
  const scores = new Map<T, number>();
  for (const list of lists) list.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1)));
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}
