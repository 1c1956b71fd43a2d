// What a user typed, made safe for FTS5 (docs/search.md "Queries"). The text is never handed to MATCH as it is:
// quotes, `*`, `-`, `NEAR(`, `AND`/`OR`/`NOT` and column filters are FTS5 syntax, and a stray one is a syntax error
// (a 500) or a different query. Only the words are kept, each quoted as a string and made a prefix query, and the
// words are ANDed: every word must occur, in any order. Each word is asked for as the asking person's word (their tag
// before it, person-words.ts), so the query reads only the rows of the chats that person may see.

/** The MATCH expression: each word a quoted prefix query of person `tag`'s words (`"<tag>word"*`), implicitly ANDed. */
export function matchExpression(words: readonly string[], tag: string): string {
  // A folded word holds only token characters, never a quote; doubling is the FTS5 escape should that change.
  return words.map((word) => `"${tag}${word.replaceAll('"', '""')}"*`).join(" ");
}
