// A linear server-sent-events parser. Each received byte is decoded once and each character is examined a
// bounded number of times: an unfinished line is kept as a list of pieces and joined only when its end arrives,
// so one huge event delivered a byte at a time costs O(size), not O(size²) (docs/provider.md "What real backends send").
// Accepts \n, \r\n and \r line ends (also split across reads), comments, multi-line data and a final event
// without its blank line. The non-standard `error:` field of older llama.cpp builds is reported as an event.
// An unfinished line or event is bounded (MAX_SSE_EVENT_CHARS): past it, feed throws an `invalid_chunk`.

import { ProviderError } from "./errors.ts";

/**
 * The longest event (or unfinished line) kept while waiting for its end, in characters (≈ bytes for JSON).
 * Chat chunks are a few KiB; the largest legitimate events are whole replies or inline base64 images sent as one
 * chunk (a few MiB). Without a bound, a backend that never sends a line end grows the heap until the process dies.
 */
export const MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

export interface SseEvent {
  /** `event:` field, "message" when absent; "error" for the non-standard `error:` field. */
  event: string;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder();
  private pieces: string[] = [];
  private data: string[] = [];
  private eventName = "";
  private errorData: string[] = [];
  private skipLf = false;
  /** Characters held in `pieces` (the unfinished line) and in `data` + `errorData` (the unfinished event). */
  private pieceChars = 0;
  private eventChars = 0;
  /** Characters scanned or copied (line search plus joins of split lines): the linearity test bounds it. */
  charsScanned = 0;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly onComment?: (text: string) => void,
    private readonly maxEventChars = MAX_SSE_EVENT_CHARS,
  ) {}

  feed(bytes: Uint8Array): void {
    this.feedText(this.decoder.decode(bytes, { stream: true }));
  }

  feedText(text: string): void {
    const length = text.length;
    this.charsScanned += length;
    let start = 0;
    if (this.skipLf) {
      this.skipLf = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    // Most streams never send a CR: their reads take the LF-only loop. `includes` is used for the check because
    // V8 optimizes it reliably; the general loop below keeps both positions cached instead.
    if (!text.includes("\r")) this.scanLf(text, start);
    else this.scanAny(text, start);
  }

  /** Text without CR: lines end at LF. A one-line `data:` event is dispatched without intermediate arrays. */
  private scanLf(text: string, start: number): void {
    let end = text.indexOf("\n", start);
    if (end !== -1 && this.pieces.length > 0) {
      this.pieces.push(text.slice(start, end));
      const line = this.takePieces();
      this.charsScanned += line.length;
      this.line(line);
      start = end + 1;
      end = text.indexOf("\n", start);
    }
    while (end !== -1) {
      if (end === start) {
        this.dispatch();
      } else if (isDataPrefix(text, start)) {
        const value = text.slice(text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5, end);
        if (text.charCodeAt(end + 1) === 10 && this.data.length === 0 && this.errorData.length === 0) {
          // `data: ...\n\n`: the whole event in one line.
          this.onEvent({ event: this.eventName || "message", data: value });
          this.eventName = "";
          start = end + 2;
          end = text.indexOf("\n", start);
          continue;
        }
        this.pushData(this.data, value);
      } else {
        this.line(text.slice(start, end));
      }
      start = end + 1;
      end = text.indexOf("\n", start);
    }
    if (start < text.length) this.pushPiece(text.slice(start));
  }

  /** Any mix of CR, LF and CRLF line ends. */
  private scanAny(text: string, start: number): void {
    const length = text.length;
    // Both positions are cached so text without one of them is searched for it once, not once per line.
    let nextCr = text.indexOf("\r", start);
    let nextLf = text.indexOf("\n", start);
    while (start < length) {
      if (nextCr !== -1 && nextCr < start) nextCr = text.indexOf("\r", start);
      if (nextLf !== -1 && nextLf < start) nextLf = text.indexOf("\n", start);
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      if (end === -1) {
        this.pushPiece(text.slice(start));
        return;
      }
      let line = text.slice(start, end);
      if (this.pieces.length > 0) {
        this.pieces.push(line);
        line = this.takePieces();
        this.charsScanned += line.length;
      }
      start = end + 1;
      if (end === nextCr) {
        // \r\n is one line end, even when the \n arrives in the next read.
        if (start === length) this.skipLf = true;
        else if (text.charCodeAt(start) === 10) start += 1;
      }
      this.line(line);
    }
  }

  /** The stream ended: a last line without its end and an event without its blank line still count. */
  end(): void {
    const tail = this.decoder.decode();
    if (tail) this.feedText(tail);
    if (this.pieces.length > 0) this.line(this.takePieces());
    this.dispatch();
  }

  /** Keeps the start of an unfinished line, refusing one that outgrows the bound. */
  private pushPiece(piece: string): void {
    this.pieceChars += piece.length;
    if (this.pieceChars > this.maxEventChars) this.tooLarge("a line");
    this.pieces.push(piece);
  }

  /** The unfinished line, now complete. */
  private takePieces(): string {
    const line = this.pieces.join("");
    this.pieces = [];
    this.pieceChars = 0;
    return line;
  }

  /** Adds one `data:` (or `error:`) line to the unfinished event, refusing an event that outgrows the bound. */
  private pushData(into: string[], value: string): void {
    this.eventChars += value.length;
    if (this.eventChars > this.maxEventChars) this.tooLarge("an event");
    into.push(value);
  }

  private tooLarge(what: string): never {
    // Nothing more is kept: the reader stops and releases the body when this is thrown.
    this.pieces = [];
    this.data = [];
    this.errorData = [];
    this.pieceChars = 0;
    this.eventChars = 0;
    const mib = this.maxEventChars / (1024 * 1024);
    throw new ProviderError(
      "invalid_chunk",
      `the backend sent ${what} of more than ${mib} MiB without ending it; stopped reading. Check that base_url points at a chat-completions server that ends each event with a blank line`,
    );
  }

  private line(line: string): void {
    if (line.length === 0) return this.dispatch();
    // Fast path: almost every line of a chat stream is `data: {...}`.
    if (isDataPrefix(line, 0)) {
      this.pushData(this.data, line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      return;
    }
    if (line.charCodeAt(0) === 58) {
      this.onComment?.(line.slice(1));
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "event") this.eventName = value;
    else if (field === "error") this.pushData(this.errorData, value);
    else if (field === "data") this.pushData(this.data, value);
    // id and retry are meaningless for a one-shot completion stream.
  }

  private dispatch(): void {
    this.eventChars = 0;
    if (this.errorData.length > 0) {
      const data = this.errorData.join("\n");
      this.errorData = [];
      this.onEvent({ event: "error", data });
    }
    if (this.data.length > 0) {
      const data = this.data.length === 1 ? this.data[0]! : this.data.join("\n");
      this.data = [];
      this.onEvent({ event: this.eventName || "message", data });
    }
    this.eventName = "";
  }
}

/** `data:` at `at` (compared by char code: cheaper than slicing or startsWith on the hot path). */
function isDataPrefix(text: string, at: number): boolean {
  return (
    text.charCodeAt(at) === 100 &&
    text.charCodeAt(at + 1) === 97 &&
    text.charCodeAt(at + 2) === 116 &&
    text.charCodeAt(at + 3) === 97 &&
    text.charCodeAt(at + 4) === 58
  );
}
