// A chat's vectors of one model in one WebAssembly memory, scored against a question by the SIMD kernel of
// dot-kernel.wat (docs/documents.md "Vectors in memory"). The scan over 100,000 vectors of 384 was 38 million
// multiply-adds in JavaScript, one at a time; WebAssembly's SIMD does four a step, and the memory is laid so the
// kernel reads the vectors one after another: [the question][a score a vector][the vectors], every vector padded
// with zeros to a multiple of 16 floats. The scores are exact dot products in Float32 (the vectors are Float32).
import { DOT_KERNEL_WASM } from "./dot-kernel-wasm.ts";

const PAGE_BYTES = 65536;
/** Floats a kernel step takes: a vector's length is padded to a multiple of this. */
const STEP_FLOATS = 16;

let compiled: WebAssembly.Module | undefined;
/** Compiled once, on the first chat that needs it (a few hundred bytes: compiling synchronously is quick). */
function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Buffer.from(DOT_KERNEL_WASM, "base64"));
  return compiled;
}

type Scores = (query: number, vectors: number, rows: number, rowBytes: number, out: number) => void;

export class VectorMatrix {
  readonly dimensions: number;
  readonly rows: number;
  /** Bytes the matrix holds: what a cache of matrices counts. */
  readonly byteLength: number;
  private readonly stride: number;
  private readonly memory: WebAssembly.Memory;
  private readonly run: Scores;

  /** Bytes a matrix of `rows` vectors of `dimensions` takes, before making it. */
  static bytesFor(rows: number, dimensions: number): number {
    const stride = strideOf(dimensions);
    return Math.ceil((vectorsAt(rows, stride) + rows * stride * 4) / PAGE_BYTES) * PAGE_BYTES;
  }

  constructor(rows: number, dimensions: number) {
    this.rows = rows;
    this.dimensions = dimensions;
    this.stride = strideOf(dimensions);
    this.byteLength = VectorMatrix.bytesFor(rows, dimensions);
    this.memory = new WebAssembly.Memory({ initial: this.byteLength / PAGE_BYTES });
    const instance = new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } });
    this.run = instance.exports["scores"] as Scores;
  }

  /** Sets vector `row` from a stored BLOB of `dimensions` Float32s (bytes, so an unaligned BLOB copies as is). */
  setRow(row: number, blob: Uint8Array): void {
    new Uint8Array(
      this.memory.buffer,
      vectorsAt(this.rows, this.stride) + row * this.stride * 4,
      this.dimensions * 4,
    ).set(blob);
  }

  /** Each vector's dot product with `query` (of `dimensions`), by row; a view valid until the next call. */
  scores(query: Float32Array): Float32Array {
    const floats = new Float32Array(this.memory.buffer);
    floats.set(query, 0); // the padding after it stays zero: nothing else writes there
    this.run(0, vectorsAt(this.rows, this.stride), this.rows, this.stride * 4, this.stride * 4);
    return floats.subarray(this.stride, this.stride + this.rows);
  }
}

/** A vector's length in floats once padded for the kernel. */
function strideOf(dimensions: number): number {
  return Math.ceil(dimensions / STEP_FLOATS) * STEP_FLOATS;
}

/** The byte where the vectors start: after the question and a score a vector, at a multiple of 16 for SIMD loads. */
function vectorsAt(rows: number, stride: number): number {
  return (stride + Math.ceil(rows / 4) * 4) * 4;
}
