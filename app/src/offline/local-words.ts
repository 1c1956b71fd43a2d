// Words as the server's search sees them (docs/search.md "Queries"), for searching on this device while offline:
// a token is a run of letters, numbers, marks and private-use characters (SQLite's unicode61 tokenizer), folded to
// lower case with accents removed (its remove_diacritics), and a query word matches as the start of a token.
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Words of a query that count, as on the server; more are ignored. */
export const MAX_QUERY_WORDS = 16;

export function fold(word: string): string {
  return word
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** Every token of `text` with its offsets (UTF-16 code units, end exclusive) and its folded form. */
export function* tokens(text: string): Generator<{ start: number; end: number; folded: string }> {
  for (const match of text.matchAll(WORD))
    yield { start: match.index, end: match.index + match[0].length, folded: fold(match[0]) };
}

/** The query's words, folded and without repeats. */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const token of tokens(query)) {
    if (token.folded !== "") words.add(token.folded);
    if (words.size === MAX_QUERY_WORDS) break;
  }
  return [...words];
}

export const isHit = (folded: string, words: readonly string[]) => words.some((word) => folded.startsWith(word));

/** Characters of context before the first match, and the snippet's length at most (before the "…"s). */
const LEAD = 60;
const LENGTH = 200;

/** A plain-text slice of `text` around its first hit, whitespace collapsed, with the hits' offsets in it. */
export function localSnippet(
  text: string,
  words: readonly string[],
): { snippet: string; highlights: Array<[number, number]> } {
  let first = 0;
  for (const token of tokens(text))
    if (isHit(token.folded, words)) {
      first = token.start;
      break;
    }
  const from = Math.max(0, first - LEAD);
  const to = Math.min(text.length, from + LENGTH);
  const body = text.slice(from, to).replace(/\s+/g, " ").trim();
  const snippet = `${from > 0 ? "…" : ""}${body}${to < text.length ? "…" : ""}`;
  const highlights: Array<[number, number]> = [];
  for (const token of tokens(snippet)) if (isHit(token.folded, words)) highlights.push([token.start, token.end]);
  return { snippet, highlights };
}
