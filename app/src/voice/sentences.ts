// Cuts text into sentences (docs/voice.md "Read aloud"): the first sentence of a streaming reply can be spoken while
// the rest still streams, and each piece fits one relayed call (at most 400 characters: a longer sentence is cut at
// a comma, else at a space).
import { wholeEnd } from "../../../client/index.ts";

export const MAX_PIECE = 400;

const SENTENCE_END = /[.!?…。！？](?:["'”’)\]]*)(?=\s|$)|\n{2,}/g;

/** Pieces of at most `max` characters: a long sentence cut at its last comma or space before the limit. */
export function pieces(sentence: string, max = MAX_PIECE): string[] {
  const out: string[] = [];
  let rest = sentence.trim();
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const cut = Math.max(window.lastIndexOf(", ") + 1, 0) || window.lastIndexOf(" ");
    // Never between a pair's halves: the piece is sent to POST /audio/speech, which refuses a lone one.
    const end = cut > max / 4 ? cut : max;
    const at = wholeEnd(rest, end) || end;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest !== "") out.push(rest);
  return out;
}

/** Whole sentences of `text` so far, and the unfinished rest to wait for. */
export function splitSentences(text: string): { sentences: string[]; rest: string } {
  const sentences: string[] = [];
  let start = 0;
  for (const match of text.matchAll(SENTENCE_END)) {
    const end = match.index + match[0].length;
    const sentence = text.slice(start, end).trim();
    if (sentence !== "") sentences.push(...pieces(sentence));
    start = end;
  }
  const rest = text.slice(start);
  // A rest that is already too long to be one piece is said in pieces too, keeping its tail to grow.
  if (rest.length > MAX_PIECE) {
    const split = pieces(rest);
    return { sentences: [...sentences, ...split.slice(0, -1)], rest: split.at(-1) ?? "" };
  }
  return { sentences, rest };
}
