// Splits a stdio server's output into newline-delimited messages without ever holding more than `maxLine` bytes of
// one: a longer line is skipped as it streams by, and only its first and last bytes are kept, so the JSON-RPC id
// of an oversize answer can still be found and its call failed at once (docs/tools.md "Safety", S1).
const KEEP = 256;

export interface OversizeLine {
  /** The line's first bytes and last bytes (at most KEEP each), as text. */
  head: string;
  tail: string;
  bytes: number;
}

export class LineReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping a line that passed maxLine: only its edges are kept. */
  private skipping: { head: string; tail: Buffer; bytes: number } | undefined;

  constructor(
    private readonly maxLine: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (line: OversizeLine) => void,
    /** Called once a line passes maxLine, with its first bytes: its call can be failed before the rest streams by. */
    private readonly onSkipStart: (head: string) => void = () => undefined,
  ) {}

  /**
   * Reads `chunk` line by line while `more()` allows another line; answers the bytes not read yet (undefined when
   * all were), which the caller hands back later. Lines are handled as they are found, so none waits as a string.
   */
  push(chunk: Buffer, more: () => boolean = () => true): Buffer | undefined {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) return void this.keep(chunk.subarray(start));
      if (!more()) return chunk.subarray(start);
      this.keep(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
  }

  /** Bytes held for the line in progress (bounded by maxLine plus one chunk). */
  get buffered(): number {
    return this.size;
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) return this.skip(part);
    if (this.size + part.length <= this.maxLine) {
      this.chunks.push(part);
      this.size += part.length;
      return;
    }
    const head = firstBytes([...this.chunks, part], KEEP).toString("utf8");
    this.skipping = { head, tail: Buffer.alloc(0), bytes: this.size };
    this.chunks = [];
    this.size = 0;
    this.skip(part);
    this.onSkipStart(head);
  }

  private skip(part: Buffer): void {
    const skipping = this.skipping!;
    skipping.bytes += part.length;
    const joined = Buffer.concat([skipping.tail, part.subarray(Math.max(0, part.length - KEEP))]);
    // A copy, so the chunk it came from can be collected.
    skipping.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - KEEP)));
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, tail, bytes } = this.skipping;
      this.skipping = undefined;
      return this.onOversize({ head, tail: tail.toString("utf8"), bytes });
    }
    if (this.size === 0) return;
    const line =
      this.chunks.length === 1
        ? this.chunks[0]!.toString("utf8")
        : Buffer.concat(this.chunks, this.size).toString("utf8");
    this.chunks = [];
    this.size = 0;
    const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (trimmed.trim() !== "") this.onLine(trimmed);
  }
}

/** The first `count` bytes of chunks, copying only those (the held chunks are dropped, not joined). */
function firstBytes(chunks: Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (size >= count) break;
    kept.push(chunk.subarray(0, count - size));
    size += kept.at(-1)!.length;
  }
  return Buffer.concat(kept, size);
}

/**
 * The numeric JSON-RPC id of a message seen only in part (an oversize line, or one that is not valid JSON):
 * where serializers put it, right after `"jsonrpc":"2.0",` or first at the start, or last at the end. Only
 * numbers: the SDK's client numbers its requests, so a string id answers nothing of ours.
 */
export function idOfPartialMessage(head: string, tail: string): number | undefined {
  const atStart = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d{1,15})\s*[,}]/.exec(head);
  if (atStart) return Number(atStart[1]);
  const atEnd = /[,{]\s*"id"\s*:\s*(\d{1,15})\s*\}\s*$/.exec(tail);
  return atEnd ? Number(atEnd[1]) : undefined;
}
