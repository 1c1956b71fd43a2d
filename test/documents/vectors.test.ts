// The arithmetic of hybrid retrieval (docs/documents.md "Hybrid retrieval"): unit vectors checked before they are
// kept, reciprocal rank fusion with k = 60, and the nearest chunks of a chat, from memory within the cache's bound and
// straight from the rows past it.
import { describe, expect, it } from "vitest";
import { ChatVectorIndex, type VectorRow } from "../../server/documents/vector-search.ts";
import { EmbeddingFailure, fromBlob, fuse, toBlob, unitVector } from "../../server/documents/vectors.ts";

describe("vectors", () => {
  it("V1 fusion scores 1/(60 + rank) summed over the lists; ties keep the order first seen", () => {
    // b: 1/62 + 1/61; a: 1/61; d (second in the second list): 1/62; c (third in the first): 1/63.
    expect(
      fuse([
        ["a", "b", "c"],
        ["b", "d"],
      ]),
    ).toEqual(["b", "a", "d", "c"]);
    expect(fuse([["p"], ["q"]])).toEqual(["p", "q"]);
    // A chunk second in both beats one first in one only: 2/62 > 1/61.
    expect(
      fuse([
        ["x", "both"],
        ["y", "both"],
      ])[0],
    ).toBe("both");
    expect(fuse([])).toEqual([]);
  });

  it("V2 a vector is scaled to length 1; the wrong length, NaN, Infinity, zeros or too many dimensions are refused", () => {
    const vector = unitVector([3, 4], undefined);
    expect([...vector].map((x) => Math.round(x * 1000) / 1000)).toEqual([0.6, 0.8]);
    expect([...fromBlob(toBlob(vector))]).toEqual([...vector]);
    expect(() => unitVector([1, 2, 3], 2)).toThrow(/3 dimensions where the others have 2/);
    expect(() => unitVector([1, Number.NaN], undefined)).toThrow(EmbeddingFailure);
    expect(() => unitVector([1, Number.POSITIVE_INFINITY], undefined)).toThrow(/not a finite number/);
    expect(() => unitVector([0, 0], undefined)).toThrow(/all zeros/);
    expect(() => unitVector([], undefined)).toThrow(/0 dimensions/);
    expect(() => unitVector(new Array<number>(5000).fill(1), undefined)).toThrow(/at most 4096/);
  });

  it("V3 the nearest chunks, those the question points away from left out; the same past the cache's bound; forget reloads", () => {
    const rows: VectorRow[] = [
      [1, 0],
      [0.8, 0.6],
      [0, 1],
      [-1, 0],
      [0.6, 0.8],
    ].map((values, i) => ({ chunk_id: i + 1, vector: toBlob(unitVector(values, 2)) }));
    let loads = 0;
    const source = {
      count: () => rows.length,
      rows: () => ((loads += 1), rows),
    };
    const query = unitVector([1, 0], 2);
    const cached = new ChatVectorIndex(source);
    const ids = (index: ChatVectorIndex, limit: number) =>
      index.nearest("chat", "m", query, limit).map((n) => n.chunk_id);
    expect(ids(cached, 10)).toEqual([1, 2, 5]); // 3 is orthogonal, 4 opposite
    expect(ids(cached, 2)).toEqual([1, 2]);
    expect(loads).toBe(1); // kept in memory after the first
    cached.forget("chat");
    rows[2] = { chunk_id: 3, vector: toBlob(unitVector([0.9, 0.1], 2)) };
    expect(ids(cached, 2)).toEqual([1, 3]);
    expect(loads).toBe(2);
    const unbounded = new ChatVectorIndex(source, 8); // 5 vectors of 8 bytes do not fit in 8 bytes
    expect(ids(unbounded, 10)).toEqual([1, 3, 2, 5]);
    expect(ids(unbounded, 10)).toEqual([1, 3, 2, 5]);
    expect(loads).toBe(4); // read from the rows every time, kept nowhere
  });
});
