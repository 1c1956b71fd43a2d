// Parses one element of an import file in pieces (docs/export.md "In slices"), so no synchronous step covers a large
// element: one ChatGPT conversation of 10,000 messages is 2.2 MB of JSON, and JSON.parse of it in one call held the
// server for tens of milliseconds (hundreds on a loaded machine). array-scanner.ts notes, while it reads the file, where
// each container larger than PIECE_BYTES opens and closes; such a container is taken here member by member, every
// member that is not itself large through JSON.parse (native, fast), with a turn of the event loop between members.
// So the work stays linear (each byte is looked at once here, besides the scanner's pass) and each step is bounded.
// (A streaming parser, @streamparser/json, did the same job nine times slower than JSON.parse, with that much more
// garbage to collect: measured on this element, so the large containers are split here and the rest stays native.)
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  isSpace,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from "./json-bytes.ts";
import type { Slices } from "./slices.ts";

/** A container at least this long (bytes of its JSON) is parsed member by member. */
export const PIECE_BYTES = 64 * 1024;

/** Where each large container of an element opens and closes: byte offsets in the element's text. */
export type LargeContainers = Map<number, number>;

/** A syntax error of the element; the caller names the element. */
export class PieceSyntaxError extends Error {}

/** The element `text` as JSON.parse would give it; `large` from the scanner. Throws SyntaxError/PieceSyntaxError. */
export async function parseInPieces(
  text: Buffer,
  large: LargeContainers,
  slices: Pick<Slices, "step">,
): Promise<unknown> {
  const parser = new PieceParser(text, large, slices);
  const from = parser.skipSpace(0);
  const to = parser.trimmedEnd();
  return parser.value(from, to);
}

class PieceParser {
  constructor(
    private readonly text: Buffer,
    private readonly large: LargeContainers,
    private readonly slices: Pick<Slices, "step">,
  ) {}

  skipSpace(at: number): number {
    while (at < this.text.length && isSpace(this.text[at]!)) at++;
    return at;
  }

  trimmedEnd(): number {
    let end = this.text.length;
    while (end > 0 && isSpace(this.text[end - 1]!)) end--;
    return end;
  }

  /** The value in [from, to): a large container member by member, anything else in one JSON.parse. */
  async value(from: number, to: number): Promise<unknown> {
    const close = this.large.get(from);
    if (close === undefined || close + 1 !== to) return JSON.parse(this.text.toString("utf8", from, to));
    const isArray = this.text[from] === OPEN_ARRAY;
    if (this.text[close] !== (isArray ? CLOSE_ARRAY : CLOSE_OBJECT))
      throw new PieceSyntaxError(
        `'${String.fromCharCode(this.text[close]!)}' at byte ${close} closes the wrong bracket`,
      );
    return isArray ? this.array(from, close) : this.object(from, close);
  }

  private async array(open: number, close: number): Promise<unknown[]> {
    const items: unknown[] = [];
    for (let at = this.firstMember(open, close, CLOSE_ARRAY); at < close;) {
      const end = this.memberEnd(at, close);
      items.push(await this.value(at, end));
      at = this.nextMember(end, close);
      await this.slices.step();
    }
    return items;
  }

  private async object(open: number, close: number): Promise<Record<string, unknown>> {
    const object: Record<string, unknown> = {};
    for (let at = this.firstMember(open, close, CLOSE_OBJECT); at < close;) {
      if (this.text[at] !== QUOTE) throw new PieceSyntaxError(`expected a property name at byte ${at} of the element`);
      const keyEnd = this.stringEnd(at);
      const key = JSON.parse(this.text.toString("utf8", at, keyEnd)) as string;
      const colon = this.skipSpace(keyEnd);
      if (this.text[colon] !== COLON) throw new PieceSyntaxError(`expected ':' at byte ${colon} of the element`);
      const start = this.skipSpace(colon + 1);
      const end = this.memberEnd(start, close);
      // As JSON.parse: `__proto__` is an own property, never the object's prototype.
      Object.defineProperty(object, key, {
        value: await this.value(start, end),
        writable: true,
        enumerable: true,
        configurable: true,
      });
      at = this.nextMember(end, close);
      await this.slices.step();
    }
    return object;
  }

  /** The first member's start, or `close` for an empty container. */
  private firstMember(open: number, close: number, closer: number): number {
    const at = this.skipSpace(open + 1);
    if (at === close && this.text[close] === closer) return close;
    return at;
  }

  /** After a member ending at `end`: the next member's start, or `close`; a comma must separate them. */
  private nextMember(end: number, close: number): number {
    const at = this.skipSpace(end);
    if (at === close) return close;
    if (this.text[at] !== COMMA) throw new PieceSyntaxError(`expected ',' at byte ${at} of the element`);
    const next = this.skipSpace(at + 1);
    if (next >= close) throw new PieceSyntaxError(`a value is missing after ',' at byte ${at} of the element`);
    return next;
  }

  /** Where the member starting at `at` ends (exclusive, before trailing space): a large one by its recorded close. */
  private memberEnd(at: number, close: number): number {
    const recorded = this.large.get(at);
    if (recorded !== undefined) return recorded + 1;
    let depth = 0;
    let end = at;
    for (; end < close; end++) {
      const byte = this.text[end]!;
      if (byte === QUOTE) {
        end = this.stringEnd(end) - 1;
        continue;
      }
      if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth++;
      else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
      else if (depth === 0 && byte === COMMA) break;
    }
    while (end > at && isSpace(this.text[end - 1]!)) end--;
    if (end === at) throw new PieceSyntaxError(`a value is missing at byte ${at} of the element`);
    return end;
  }

  /** Just past the closing quote of the string opening at `at`. */
  private stringEnd(at: number): number {
    for (let i = at + 1; i < this.text.length; i++) {
      const byte = this.text[i]!;
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) return i + 1;
    }
    throw new PieceSyntaxError(`a string at byte ${at} of the element is not closed`);
  }
}
