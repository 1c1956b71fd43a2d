// Turns a stream scenario into SSE bytes, part by part, in the framing the scenario asks for.
import type { StreamPart } from "./scenarios.ts";

export function encodePart(part: StreamPart, eol: string): string {
  if ("data" in part) return `data: ${JSON.stringify(part.data)}${eol}${eol}`;
  if ("comment" in part) return `:${part.comment}${eol}${eol}`;
  return part.raw;
}

export function encodeParts(parts: readonly StreamPart[], eol: string, done: boolean): string[] {
  const out = parts.map((part) => encodePart(part, eol));
  if (done) out.push(`data: [DONE]${eol}${eol}`);
  return out;
}

/** The whole SSE body at once (benchmarks pre-encode it). */
export function encodeStream(parts: readonly StreamPart[], options: { eol?: string; done?: boolean } = {}): Buffer {
  return Buffer.from(encodeParts(parts, options.eol ?? "\n", options.done ?? true).join(""));
}

/** Splits text into pieces of `size` bytes (by UTF-8 bytes, so multi-byte characters may be cut: on purpose). */
export function splitBytes(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}
