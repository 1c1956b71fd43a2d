// What a user typed, made safe for FTS5 (docs/search.md "Queries"). The text is never handed to MATCH as it is:
// quotes, `*`, `-`, `NEAR(`, `AND`/`OR`/`NOT` and column filters are FTS5 syntax, and a stray one is a syntax error
// (a 500) or a different query. Only the words are kept, each quoted as a string and made a prefix query, and the
// words are ANDed: every word must occur, in any order.

/** Characters the unicode61 tokenizer keeps in a token (letters, numbers, private use; marks stay with letters). */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Words of a query that count; more are ignored (a query of hundreds of words is a paste, not a search). */
export const MAX_QUERY_WORDS = 16;

/** A word folded the way the index folds it (unicode61 remove_diacritics 2): lower case, accents removed. */
export function fold(word: string): string {
  return word
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** The query's words, folded and without repeats (empty: nothing to search for). */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const match of query.matchAll(WORD)) {
    const word = fold(match[0]);
    if (word !== "") words.add(word);
    if (words.size === MAX_QUERY_WORDS) break;
  }
  return [...words];
}

/** The MATCH expression: each word a quoted prefix query (`"word"*`), implicitly ANDed. */
export function matchExpression(words: readonly string[]): string {
  // A folded word holds only token characters, never a quote; doubling is the FTS5 escape should that change.
  return words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(" ");
}

/** Every token of `text` with its offsets (UTF-16 code units, end exclusive) and its folded form. */
export function* tokens(text: string): Generator<{ start: number; end: number; folded: string }> {
  for (const match of text.matchAll(WORD))
    yield { start: match.index, end: match.index + match[0].length, folded: fold(match[0]) };
}

/** Whether a folded token is a hit for the query's words: a word is a prefix of it, as the prefix query matched. */
export function isHit(folded: string, words: readonly string[]): boolean {
  return words.some((word) => folded.startsWith(word));
}
