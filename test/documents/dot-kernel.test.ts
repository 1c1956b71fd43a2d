// The SIMD scan of hybrid retrieval (docs/documents.md "Vectors in memory"): the committed WebAssembly is the one its
// source compiles to, its scores are the dot products JavaScript computes, and the nearest chunks it finds are exactly
// those of a scan of the rows in JavaScript (nothing approximated: the recall of the top 50 is 1).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { kernelModuleSource, wasmOfKernel } from "../../scripts/dot-kernel-source.ts";
import { VectorMatrix } from "../../server/documents/dot-kernel.ts";
import { DOT_KERNEL_WASM } from "../../server/documents/dot-kernel-wasm.ts";
import { ChatVectorIndex, type VectorRow } from "../../server/documents/vector-search.ts";
import { dotAt, toBlob, unitVector } from "../../server/documents/vectors.ts";
import { seededRandom } from "../support/seeded-random.ts";

/** Seeded: the same vectors every run. */
function vectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () =>
    unitVector(
      Array.from({ length: dimensions }, () => next() * 2 - 1),
      dimensions,
    ),
  );
}

describe("dot kernel", () => {
  it("V4 the committed WebAssembly is its source's (scripts/build-dot-kernel.ts)", async () => {
    const wat = readFileSync(new URL("../../server/documents/dot-kernel.wat", import.meta.url), "utf8");
    const wasm = await wasmOfKernel(wat);
    expect(Buffer.from(DOT_KERNEL_WASM, "base64").equals(Buffer.from(wasm))).toBe(true);
    const generated = readFileSync(new URL("../../server/documents/dot-kernel-wasm.ts", import.meta.url), "utf8");
    expect(generated).toBe(kernelModuleSource(wasm));
  });

  it("V5 every vector's score is its dot product with the question, at any length, from unaligned BLOBs", () => {
    for (const dimensions of [1, 3, 16, 17, 383, 384, 1536]) {
      for (const rows of [0, 1, 37]) {
        const [query, ...all] = vectors(rows + 1, dimensions, dimensions * 100 + rows);
        const matrix = new VectorMatrix(rows, dimensions);
        all.forEach((vector, row) => {
          const unaligned = Buffer.alloc(vector.byteLength + 1).subarray(1);
          unaligned.set(toBlob(vector));
          matrix.setRow(row, unaligned);
        });
        const scores = matrix.scores(query!);
        expect(scores.length).toBe(rows);
        all.forEach((vector, row) => expect(scores[row]).toBeCloseTo(dotAt(query!, vector, 0), 5));
      }
    }
  });

  it("V6 the nearest 50 of 5,000 from the kernel are those of a JavaScript scan of the rows, in the same order", () => {
    const dimensions = 384;
    const rows: VectorRow[] = vectors(5000, dimensions, 7).map((vector, i) => ({
      chunk_id: i + 1,
      vector: toBlob(vector),
    }));
    const source = { count: () => rows.length, rows: () => rows };
    const kernel = new ChatVectorIndex(source);
    const javascript = new ChatVectorIndex(source, 0); // past its bound: scored from the rows in JavaScript
    for (const query of vectors(20, dimensions, 99)) {
      const exact = javascript.nearest("chat", "m", query, 50);
      const found = kernel.nearest("chat", "m", query, 50);
      expect(exact.length).toBe(50);
      expect(found.map((n) => n.chunk_id)).toEqual(exact.map((n) => n.chunk_id));
      found.forEach((n, i) => expect(n.similarity).toBeCloseTo(exact[i]!.similarity, 5));
    }
  });
});
