// Words as the server's search index sees them (docs/search.md "Queries"): a token is a run of letters, numbers,
// marks and private-use characters (SQLite's unicode61 tokenizer), folded to lower case with accents removed (its
// remove_diacritics 2), and a query word matches as the start of a token (the prefix query). The server builds its
// FTS5 queries and snippets from these; the app searches its offline copies with the same ones, so a word found
// online is found offline.

/** Characters the unicode61 tokenizer keeps in a token (letters, numbers, private use; marks stay with letters). */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Words of a query that count; more are ignored (a query of hundreds of words is a paste, not a search). */
export const MAX_QUERY_WORDS = 16;

/** A word folded the way the index folds it: lower case, accents removed. */
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

/** The query's words, folded and without repeats (empty: nothing to search for). */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const token of tokens(query)) {
    if (token.folded !== "") words.add(token.folded);
    if (words.size === MAX_QUERY_WORDS) break;
  }
  return [...words];
}

/** Whether a folded token is a hit for the query's words: a word is a prefix of it, as the prefix query matched. */
export function isHit(folded: string, words: readonly string[]): boolean {
  return words.some((word) => folded.startsWith(word));
}
