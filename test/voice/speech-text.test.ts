// What the app says of a reply (docs/voice.md "Read aloud", "Conversation mode"): Markdown made speakable, cut into
// sentences that fit one relayed call, handed out as a streaming reply grows.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReplySpeech, spokenPieces, untilOpenFence } from "../../app/src/voice/reply-speech.ts";
import { MAX_PIECE, pieces, splitSentences } from "../../app/src/voice/sentences.ts";
import { mathWords, speakable } from "../../app/src/voice/speakable.ts";

describe("speakable", () => {
  it("V20 says no Markdown signs: emphasis, headings, lists, links by their text, inline code by its words", () => {
    expect(speakable("# Plan\n\n**Bold** and _soft_ words, see [the docs](https://example.com/x) or `npm test`.")).toBe(
      "Plan. Bold and soft words, see the docs or npm test.",
    );
    expect(speakable("- one\n- two\n\n1. first\n2. second")).toBe("one. two. first. second.");
    expect(speakable("![a cat on a sofa](cat.png)")).toBe("image: a cat on a sofa.");
  });

  it("V21 names a code block by its language instead of reading it", () => {
    expect(speakable("Try this:\n\n```python\nprint('hi')\nfor i in range(3): pass\n```\n\nDone.")).toBe(
      "Try this: (a Python code block) Done.",
    );
    expect(speakable("```\nrm -rf /\n```")).toBe("(a code block)");
  });

  it("V22 says simple math in words", () => {
    expect(mathWords("x^2 + y^2 = z^2")).toBe("x squared plus y squared equals z squared");
    expect(speakable("Area is $\\pi r^2$ and $$\\frac{a}{b}$$")).toBe("Area is pi r squared and a over b.");
  });

  it("V23 a table is read row by row", () => {
    expect(speakable("| name | age |\n|---|---|\n| Ana | 31 |")).toBe("name, age. Ana, 31.");
  });
});

describe("sentences", () => {
  it("V24 whole sentences and the unfinished rest; every piece at most 400 characters, cut at a comma or space", () => {
    expect(splitSentences("One. Two! Three? Fo")).toEqual({ sentences: ["One.", "Two!", "Three?"], rest: " Fo" });
    const long = `${"word ".repeat(150)}end.`;
    const cut = pieces(long);
    expect(cut.length).toBeGreaterThan(1);
    expect(cut.every((piece) => piece.length <= MAX_PIECE)).toBe(true);
    expect(cut.join(" ")).toBe(long.replace(/\s+/g, " ").trim());
  });

  it("V25 property: any text is said whole, in order, in pieces of at most 400 characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), (text) => {
        const { sentences, rest } = splitSentences(text);
        expect(sentences.every((piece) => piece.length <= MAX_PIECE && piece.trim() === piece)).toBe(true);
        const words = (s: string) => s.split(/\s+/).filter(Boolean);
        expect([...sentences.flatMap(words), ...words(rest)]).toEqual(words(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe("a streaming reply", () => {
  it("V26 hands out each sentence once, as soon as it is whole; the rest at the end", () => {
    const speech = new ReplySpeech();
    expect(speech.push("Hello the")).toEqual([]);
    expect(speech.push("re. How are")).toEqual(["Hello there."]);
    expect(speech.push(" you? I am")).toEqual(["How are you?"]);
    expect(speech.end()).toEqual(["I am."]);
  });

  it("V27 holds a code block until it closes, then says its name; never a line of code", () => {
    const speech = new ReplySpeech();
    expect(speech.push("Run this.\n```js\nconsole.log('a.b. c.');\n")).toEqual(["Run this."]);
    expect(untilOpenFence("Run this.\n```js\nx")).toBe("Run this.\n");
    expect(speech.push("```\nThat is all.")).toEqual(["(a JavaScript code block)", "That is all."]);
    expect(speech.end()).toEqual([]);
  });

  it("V28 property: however a reply is cut into partials, the pieces said are those of the whole reply", () => {
    const reply = fc.array(
      // Fences start a line, as Markdown reads them (a fence after text on its line is not one).
      fc.constantFrom("Hello there. ", "**bold** text", "\n\n", "\n```py\nx = 1.\n```\n", "- item\n", "Why? ", "a, b "),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(reply, fc.array(fc.nat(), { maxLength: 10 }), (parts, cuts) => {
        const text = parts.join("");
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const speech = new ReplySpeech();
        const said: string[] = [];
        let from = 0;
        for (const point of [...points, text.length]) {
          said.push(...speech.push(text.slice(from, point)));
          from = point;
        }
        said.push(...speech.end());
        expect(said.join(" ").replace(/\s+/g, " ")).toBe(spokenPieces(text).join(" ").replace(/\s+/g, " "));
      }),
      { numRuns: 200 },
    );
  });
});
