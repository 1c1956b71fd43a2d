// A reply's Markdown turned into pieces to say as it streams (docs/voice.md "Read aloud"): each whole sentence is made
// speakable on its own and handed out once; a code block is held until it closes and then said by its name ("a Python
// code block"), never line by line; at the end whatever is left is said too.
import { splitSentences } from "./sentences.ts";
import { speakable } from "./speakable.ts";

const CLOSED_FENCE = /^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/m;

/** The text up to an unclosed code fence: a code block is said once it is whole. */
export function untilOpenFence(text: string): string {
  const fences = [...text.matchAll(/^[ \t]*(```|~~~)/gm)];
  return fences.length % 2 === 1 ? text.slice(0, fences.at(-1)!.index) : text;
}

export class ReplySpeech {
  private raw = "";
  /** How much of `raw` has been handed out. */
  private consumed = 0;

  /** More of the reply; the pieces that became whole. */
  push(content: string): string[] {
    this.raw += content;
    return this.take(false);
  }

  /** The reply ended: the pieces left. */
  end(): string[] {
    return this.take(true);
  }

  private take(ended: boolean): string[] {
    const out: string[] = [];
    let segment = (ended ? this.raw : untilOpenFence(this.raw)).slice(this.consumed);
    for (;;) {
      const fence = CLOSED_FENCE.exec(segment);
      const prose = fence ? segment.slice(0, fence.index) : segment;
      const { sentences, rest } = splitSentences(prose);
      out.push(...sentences.map(speakable));
      if (fence) {
        out.push(speakable(rest), speakable(fence[0]));
        this.consumed += fence.index + fence[0].length;
        segment = segment.slice(fence.index + fence[0].length);
        continue;
      }
      this.consumed += prose.length - rest.length;
      if (ended) {
        out.push(speakable(rest));
        this.consumed += rest.length;
      }
      return out.filter((piece) => piece.trim() !== "");
    }
  }
}

/** Everything a finished reply is said in. */
export function spokenPieces(markdown: string): string[] {
  const speech = new ReplySpeech();
  return [...speech.push(markdown), ...speech.end()];
}
