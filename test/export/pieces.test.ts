// An element parsed in pieces (server/export/element-pieces.ts, docs/export.md "In slices", X15) is exactly what
// JSON.parse gives, and what JSON.parse refuses it refuses: here every container is taken as large (member by member),
// the hardest case for the piece parser, over generated JSON values and over broken texts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseInPieces, PieceSyntaxError, type LargeContainers } from "../../server/export/element-pieces.ts";
import { propertyRuns } from "../support/properties.ts";

const noTurns = { step: async () => {} };

/** Every container of `text` as large, by a plain scan (strings and escapes skipped). */
function everyContainer(text: Buffer): LargeContainers {
  const large: LargeContainers = new Map();
  const opens: number[] = [];
  for (let i = 0, inString = false; i < text.length; i++) {
    const byte = text[i]!;
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) opens.push(i);
    else if ((byte === 0x5d || byte === 0x7d) && opens.length > 0) large.set(opens.pop()!, i);
  }
  return large;
}

const parse = (text: string) => {
  const bytes = Buffer.from(text);
  return parseInPieces(bytes, everyContainer(bytes), noTurns);
};

describe("parseInPieces", () => {
  it("X15 gives what JSON.parse gives, member by member, whitespace and all", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom(0, 2), async (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(await parse(text)).toStrictEqual(JSON.parse(text));
      }),
      propertyRuns(200),
    );
  });

  it("X15 keeps __proto__ as an own property, as JSON.parse does", async () => {
    const parsed = (await parse('{"__proto__": {"polluted": 1}, "a": [1, {"__proto__": 2}]}')) as Record<string, any>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(parsed).toStrictEqual(JSON.parse('{"__proto__": {"polluted": 1}, "a": [1, {"__proto__": 2}]}'));
  });

  it("X15 refuses what JSON.parse refuses", async () => {
    const broken = [
      '{"a": tru}',
      '{"a" 1}',
      "{a: 1}",
      '{"a": 1,}',
      "[1,]",
      "[1 2]",
      "[,1]",
      '{"a": 1]',
      "[1}",
      '{"a": [1, 2], "b"}',
      '["abc]',
      "[1] 2",
    ];
    for (const text of broken) {
      expect(() => JSON.parse(text), text).toThrow();
      await expect(parse(text), text).rejects.toSatisfy(
        (e) => e instanceof SyntaxError || e instanceof PieceSyntaxError,
      );
    }
  });

  it("X15 gives the event loop a turn between the members of a large container", async () => {
    let turns = 0;
    const text = Buffer.from(
      JSON.stringify({ mapping: Object.fromEntries([...Array(50).keys()].map((n) => [`m${n}`, { n }])) }),
    );
    await parseInPieces(text, everyContainer(text), { step: async () => void turns++ });
    expect(turns).toBeGreaterThanOrEqual(50);
  });
});
