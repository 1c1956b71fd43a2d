// Splits a JSON file whose top level is an array into its elements, reading the file in chunks, so an import of
// hundreds of megabytes never becomes one string (docs/export.md "Import"). Only the array's own structure is read
// here (strings, escapes and bracket depth), noting where each large container opens and closes; each element is then
// parsed by element-pieces.ts (JSON.parse of its pieces, which checks the rest). Nesting is bounded, so a hostile file
// of a million '[' cannot overflow JSON.parse's or our stack. The reading pauses between chunks (slices.ts), and a large
// element is parsed in pieces, so reading one element of megabytes is not one block the server answers nothing during.
import { closeSync, openSync, readSync } from "node:fs";
import { parseInPieces, PIECE_BYTES, PieceSyntaxError, type LargeContainers } from "./element-pieces.ts";
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COMMA, isSpace, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from "./json-bytes.ts";
import type { Slices } from "./slices.ts";

/** A problem with the file's shape: the message names where (a byte offset or an element) and what. */
export class ImportFormatError extends Error {
  override name = "ImportFormatError";
}

export const MAX_IMPORT_DEPTH = 64;
const CHUNK = 1 << 16;

/** One element: its position (0-based), its bytes in the file, and its value (undefined when it was not parsed). */
export interface Element {
  index: number;
  bytes: number;
  value: unknown;
}

/**
 * Each element of the top-level array, parsed when `parse(index)` says so (the structure of every one is read, so a
 * broken file is found whatever is parsed).
 */
export async function* arrayElements(
  file: string,
  slices: Pick<Slices, "step">,
  parse: (index: number) => boolean = () => true,
): AsyncGenerator<Element> {
  const fd = openSync(file, "r");
  try {
    yield* scan(fd, slices, parse);
  } finally {
    closeSync(fd);
  }
}

async function* scan(
  fd: number,
  slices: Pick<Slices, "step">,
  parse: (index: number) => boolean,
): AsyncGenerator<Element> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let offset = 0; // bytes of the file before `buffer`
  let depth = 0; // 0 before the top-level '[', 1 inside it
  let inString = false;
  let escaped = false;
  let ended = false;
  let index = 0;
  let parts: Buffer[] = []; // the current element's bytes from earlier chunks
  let start = -1; // the current element's start in this chunk, or -1
  let sawAny = false;
  const containers = new Containers();
  for (
    let read = readSync(fd, buffer, 0, CHUNK, null);
    read > 0;
    offset += read, read = readSync(fd, buffer, 0, CHUNK, null)
  ) {
    for (let i = 0; i < read; i++) {
      const byte = buffer[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      if (isSpace(byte)) continue;
      const at = offset + i;
      if (ended) throw new ImportFormatError(`byte ${at}: nothing may follow the top-level array`);
      if (depth === 0) {
        if (byte !== OPEN_ARRAY) throw notAnArray(byte, at);
        depth = 1;
        sawAny = true;
        continue;
      }
      if (depth === 1 && (byte === COMMA || byte === CLOSE_ARRAY)) {
        const text =
          start >= 0 || parts.length > 0
            ? Buffer.concat([...parts, buffer.subarray(Math.max(start, 0), i)])
            : undefined;
        parts = [];
        start = -1;
        const large = containers.take();
        if (text !== undefined) yield await elementOf(text, large, index, parse(index), slices);
        else if (byte === COMMA || index > 0)
          throw new ImportFormatError(`byte ${at}: a value is missing before '${String.fromCharCode(byte)}'`);
        if (text !== undefined) index++;
        if (byte === CLOSE_ARRAY) ended = true;
        continue;
      }
      if (depth === 1 && start < 0 && parts.length === 0) {
        start = i;
        containers.element(at);
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (++depth > MAX_IMPORT_DEPTH)
          throw new ImportFormatError(`byte ${at}: element ${index} is nested deeper than ${MAX_IMPORT_DEPTH} levels`);
        containers.open(at);
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        if (--depth < 1) throw new ImportFormatError(`byte ${at}: '${String.fromCharCode(byte)}' closes nothing`);
        containers.close(at);
      }
    }
    if (start >= 0) parts.push(Buffer.from(buffer.subarray(start, read)));
    else if (parts.length > 0) parts.push(Buffer.from(buffer.subarray(0, read)));
    start = -1;
    await slices.step();
  }
  if (!sawAny) throw new ImportFormatError("the file is empty; an import is a JSON array");
  if (!ended)
    throw new ImportFormatError(`the file ends inside the top-level array (after element ${index}): it was cut short`);
}

function notAnArray(byte: number, at: number): ImportFormatError {
  return new ImportFormatError(
    byte === OPEN_OBJECT
      ? "the file is a JSON object; an import is a JSON array (GET /export's answer, or ChatGPT's conversations.json)"
      : `byte ${at}: the file is not a JSON array`,
  );
}

/** Where the current element's containers open and close: those of PIECE_BYTES or more, for element-pieces.ts. */
class Containers {
  private start = 0; // the element's first byte in the file
  private readonly opens: number[] = []; // where each open container starts, in the file
  private large: LargeContainers = new Map();

  element(at: number): void {
    this.start = at;
  }

  open(at: number): void {
    this.opens.push(at);
  }

  close(at: number): void {
    const open = this.opens.pop()!;
    if (at - open + 1 >= PIECE_BYTES) this.large.set(open - this.start, at - this.start);
  }

  /** The element's large containers; the next element starts afresh. */
  take(): LargeContainers {
    const large = this.large;
    this.large = new Map();
    return large;
  }
}

async function elementOf(
  text: Buffer,
  large: LargeContainers,
  index: number,
  parse: boolean,
  slices: Pick<Slices, "step">,
): Promise<Element> {
  return { index, bytes: text.length, value: parse ? await parseElement(text, large, index, slices) : undefined };
}

async function parseElement(
  text: Buffer,
  large: LargeContainers,
  index: number,
  slices: Pick<Slices, "step">,
): Promise<unknown> {
  try {
    return await parseInPieces(text, large, slices);
  } catch (error) {
    if (!(error instanceof SyntaxError || error instanceof PieceSyntaxError)) throw error;
    throw new ImportFormatError(`element ${index} is not valid JSON: ${error.message}`);
  }
}
