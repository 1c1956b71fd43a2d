// Snippets as plain text with the offsets of the matched words (docs/search.md "The route"). FTS5's snippet() would
// mark matches with text of our choosing inside the user's own text, which a client could not tell from the
// message; here the snippet is a slice of the text, whitespace collapsed, and the matches are [start, end) offsets
// into it (UTF-16 code units, JavaScript string indices), found with the same folding the index uses.
import { isHit, tokens } from "../../client/wire/search-words.ts";
import { wholeEnd } from "../../client/wire/whole-characters.ts";

export interface Snippet {
  snippet: string;
  highlights: Array<[number, number]>;
}

/** Characters of context a snippet keeps before its first match, and its whole length at most (before "…"s). */
const LEAD = 60;
const LENGTH = 200;
const ELLIPSIS = "…";

export function makeSnippet(text: string, words: readonly string[]): Snippet {
  const first = firstHit(text, words);
  // A start between a pair's halves is moved back onto the pair, as the end is: the snippet holds no half of one.
  const from = first === undefined ? 0 : wholeEnd(text, wordStartAfter(text, Math.max(0, first - LEAD), first));
  const to = wholeEnd(text, wordEndBefore(text, Math.min(text.length, from + LENGTH), first));
  const body = text.slice(from, to).replace(/\s+/g, " ").trim();
  const snippet = `${from > 0 ? ELLIPSIS : ""}${body}${to < text.length ? ELLIPSIS : ""}`;
  const highlights: Array<[number, number]> = [];
  for (const token of tokens(snippet)) if (isHit(token.folded, words)) highlights.push([token.start, token.end]);
  return { snippet, highlights };
}

/** Offset of the first token the words hit, or undefined (a hit the folding here does not see). */
function firstHit(text: string, words: readonly string[]): number | undefined {
  for (const token of tokens(text)) if (isHit(token.folded, words)) return token.start;
  return undefined;
}

/** A start at `at` moved forward past a partial word (never beyond `limit`, the first match). */
function wordStartAfter(text: string, at: number, limit: number): number {
  if (at === 0 || /\s/.test(text[at - 1]!)) return at;
  const space = text.slice(at, limit).search(/\s/);
  return space < 0 ? at : at + space + 1;
}

/** An end at `at` moved back before a partial word (never before `floor`, so the first match stays whole). */
function wordEndBefore(text: string, at: number, floor: number | undefined): number {
  if (at >= text.length || /\s/.test(text[at]!)) return at;
  const cut = text.slice(0, at).search(/\s\S*$/);
  return cut > (floor ?? 0) ? cut : at;
}
