// Snippets of this device's copies for searching offline, cut as the server cuts them (server/search/snippet.ts);
// the words themselves are the server's (client/wire/search-words.ts).
import { isHit, tokens } from "../../../client/index.ts";

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
