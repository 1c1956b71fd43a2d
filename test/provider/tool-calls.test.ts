// Tool-call assembly for every fragment variant of docs/provider.md "What real backends send".
import { describe, expect, it } from "vitest";
import { ToolCallAssembler } from "../../server/provider/tool-calls.ts";

function assemble(fragments: unknown[]) {
  const assembler = new ToolCallAssembler();
  for (const f of fragments) assembler.add(f);
  return assembler.finish().map((c) => [c.id, c.function.name, c.function.arguments]);
}
const fn = (name: string | null | undefined, args: string) => ({ name, arguments: args });

describe("ToolCallAssembler", () => {
  it("usual form: first fragment with index/id/name, later ones with index and argument text", () => {
    expect(
      assemble([
        { index: 0, id: "a", type: "function", function: fn("f", "") },
        { index: 0, function: { arguments: '{"x":' } },
        { index: 0, function: { arguments: "1}" } },
      ]),
    ).toEqual([["a", "f", '{"x":1}']]);
  });
  it("missing index: continuations attach to the last call; a new id starts a new call", () => {
    expect(
      assemble([
        { id: "a", function: fn("f", '{"x"') },
        { function: { arguments: ":1}" } },
        { id: "b", function: fn("g", "{}") },
      ]),
    ).toEqual([
      ["a", "f", '{"x":1}'],
      ["b", "g", "{}"],
    ]);
  });
  it("whole calls in one chunk each, with or without index", () => {
    expect(
      assemble([
        { index: 0, id: "a", function: fn("f", "{}") },
        { index: 1, id: "b", function: fn("g", '{"y":2}') },
      ]),
    ).toEqual([
      ["a", "f", "{}"],
      ["b", "g", '{"y":2}'],
    ]);
  });
  it("repeated ids and empty or null names on continuations", () => {
    expect(
      assemble([
        { index: 0, id: "a", function: fn("f", "") },
        { index: 0, id: "a", function: fn("", '{"z"') },
        { index: 0, id: "a", function: fn(null, ":3}") },
      ]),
    ).toEqual([["a", "f", '{"z":3}']]);
  });
  it("first index 1 (after text) is still call #0", () => {
    const a = new ToolCallAssembler();
    expect(a.add({ index: 1, id: "a", function: fn("f", "") })?.index).toBe(0);
    expect(a.finish()[0]!.function.arguments).toBe("{}");
  });
  it("parallel calls are never merged, even when a backend reuses an index with a new id", () => {
    expect(
      assemble([
        { index: 0, id: "a", function: fn("f", '{"n":1}') },
        { index: 0, id: "b", function: fn("f", '{"n":2}') },
      ]),
    ).toEqual([
      ["a", "f", '{"n":1}'],
      ["b", "f", '{"n":2}'],
    ]);
  });
  it("object arguments are serialized; a call without id gets one", () => {
    const a = new ToolCallAssembler();
    a.add({ function: { name: "f", arguments: { k: "v" } } });
    const [only] = a.finish();
    expect(only!.function.arguments).toBe('{"k":"v"}');
    expect(only!.id).toMatch(/^call_0_/);
  });
});
