// A document cut into chunks for retrieval (docs/documents.md "Retrieval"): about 800 tokens each (estimated at four
// characters a token), by page and then paragraph, with about an eighth of overlap so a sentence cut between two
// chunks is whole in one of them. A chunk never spans pages: a citation points at one page.
const CHUNK_CHARS = 3200;
const OVERLAP_CHARS = 400;

export interface Chunk {
  page: number;
  text: string;
}

/** Estimated tokens of a text (four characters a token, the usual rule for English). */
export function estimatedTokens(text: string): number {
  return tokensOfLength(text.length);
}

/** estimatedTokens of a text of `chars` characters. */
export function tokensOfLength(chars: number): number {
  return Math.ceil(chars / 4);
}

export function* chunksOf(pages: Iterable<{ page: number; text: string }>): Generator<Chunk> {
  for (const { page, text } of pages) {
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + CHUNK_CHARS);
      if (end < text.length) {
        // End at a paragraph, else a sentence, else a space, in the last third of the window.
        const window = text.slice(start + (CHUNK_CHARS * 2) / 3, end);
        const cut = Math.max(window.lastIndexOf("\n\n"), window.lastIndexOf(". "), window.lastIndexOf(" "));
        if (cut >= 0) end = start + (CHUNK_CHARS * 2) / 3 + cut + 1;
      }
      const piece = text.slice(start, end).trim();
      if (piece !== "") yield { page, text: piece };
      if (end >= text.length) break;
      start = Math.max(end - OVERLAP_CHARS, start + 1);
    }
  }
}
