// Text cut at a length (client/wire/whole-characters.ts) keeps whole characters, so nothing the app or the server cuts
// and then sends or stores holds half an emoji (docs/server.md "Route contracts": the server refuses a body holding
// one). Under generated text of emoji, CJK, spaces and ASCII: the cut itself, and each cut that is sent or stored (a
// spoken piece, a search query, a push preview, a provider error's excerpt, a derived title, a search snippet).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { headOf, wholeEnd } from "../../client/wire/whole-characters.ts";
import { sessionTitle } from "../../client/wire/messages.ts";
import { pieces } from "../../app/src/voice/sentences.ts";
import { previewText } from "../../server/push/payload.ts";
import { excerpt } from "../../server/provider/errors.ts";
import { makeSnippet } from "../../server/search/snippet.ts";
import { itHolds } from "../support/properties.ts";

const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
const text = fc.string({ unit: fc.constantFrom("a", "b", " ", ", ", "😀", "𝒳", "漢", "\n"), maxLength: 1200 });

describe("cuts on whole characters", () => {
  itHolds(
    "headOf is a well-formed prefix of max code units, or one fewer before a pair",
    fc.property(text, fc.integer({ min: 1, max: 1300 }), (input, max) => {
      const head = headOf(input, max);
      expect(wellFormed(head)).toBe(true);
      expect(input.startsWith(head)).toBe(true);
      expect(head.length).toBe(Math.min(input.length, max) - (wholeEnd(input, max) < max ? 1 : 0));
      expect(head.length).toBeGreaterThanOrEqual(Math.min(input.length, max) - 1);
    }),
    { runs: 300, ms: 5000 },
  );

  itHolds(
    "what is sent or stored after a cut is well-formed: spoken pieces, push previews, excerpts, derived titles, snippets",
    fc.property(text, fc.integer({ min: 2, max: 400 }), (input, max) => {
      const spoken = pieces(input, max);
      for (const piece of spoken) expect(wellFormed(piece), piece).toBe(true);
      expect(spoken.join("").replace(/\s/g, "")).toBe(input.replace(/\s/g, ""));
      expect(wellFormed(previewText(input, max))).toBe(true);
      expect(wellFormed(excerpt(input))).toBe(true);
      expect(wellFormed(sessionTitle({ messages: [{ role: "user", content: input, metadata: {} }] }))).toBe(true);
      for (const tail of ["", " word", "。word"])
        expect(wellFormed(makeSnippet(input + tail, ["word"]).snippet), input + tail).toBe(true);
    }),
    { runs: 300, ms: 5000 },
  );

  it("keeps whole characters where a cut lands on a pair: an excerpt's 300th unit, a title's 320th", () => {
    const excerpted = excerpt(`a${"😀".repeat(400)}`);
    expect(wellFormed(excerpted)).toBe(true);
    expect(excerpted).toBe(`a${"😀".repeat(149)}…`);
    const title = sessionTitle({
      messages: [{ role: "user", content: `${" ".repeat(319)}😀 and more`, metadata: {} }],
    });
    expect(title).toBe("");
    // A snippet's start, 60 units before its first hit, lands inside a pair: it starts on the pair.
    const snippet = makeSnippet(`${"😀中".repeat(40)}。word`, ["word"]).snippet;
    expect(wellFormed(snippet)).toBe(true);
    expect(snippet.startsWith("…😀")).toBe(true);
  });
});
