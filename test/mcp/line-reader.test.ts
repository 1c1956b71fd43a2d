// The stdio line splitter (server/mcp/line-reader.ts): lines across chunks, a line over the limit skipped with only
// its edges kept (whatever the chunking), the id of a partial message, and the `more` gate that leaves bytes unread.
import { describe, expect, it } from "vitest";
import { idOfPartialMessage, LineReader, type OversizeLine } from "../../server/mcp/line-reader.ts";

function reader(max: number) {
  const lines: string[] = [];
  const oversize: OversizeLine[] = [];
  const heads: string[] = [];
  const r = new LineReader(
    max,
    (l) => lines.push(l),
    (o) => oversize.push(o),
    (h) => heads.push(h),
  );
  return { r, lines, oversize, heads };
}

describe("LineReader", () => {
  it("joins a line split over chunks and drops \\r and blank lines", () => {
    const { r, lines } = reader(100);
    r.push(Buffer.from('{"a":'));
    r.push(Buffer.from('1}\r\n\n{"b":2}\n{"c"'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(r.buffered).toBe(4);
  });

  it("skips a line over the limit, keeping its first and last bytes, whatever the chunk sizes; the next line is read", () => {
    for (const size of [1, 7, 300, 5000]) {
      const { r, lines, oversize, heads } = reader(1000);
      const big = Buffer.from(`{"jsonrpc":"2.0","id":7,"result":"${"x".repeat(10_000)}"}\n{"ok":1}\n`);
      for (let i = 0; i < big.length; i += size) r.push(big.subarray(i, i + size));
      expect(lines).toEqual(['{"ok":1}']);
      expect(oversize).toHaveLength(1);
      expect(oversize[0]!.bytes).toBe(big.indexOf(10));
      expect(oversize[0]!.head.startsWith('{"jsonrpc":"2.0","id":7,')).toBe(true);
      expect(oversize[0]!.tail.endsWith('x"}')).toBe(true);
      expect(heads).toHaveLength(1);
      expect(r.buffered).toBe(0);
    }
  });

  it("stops when `more` says so and answers the bytes not read", () => {
    const { r, lines } = reader(100);
    let allowed = 1;
    const rest = r.push(Buffer.from("a\nb\nc\n"), () => allowed-- > 0);
    expect(lines).toEqual(["a"]);
    expect(rest!.toString()).toBe("b\nc\n");
    expect(r.push(rest!)).toBeUndefined();
    expect(lines).toEqual(["a", "b", "c"]);
  });
});

describe("idOfPartialMessage", () => {
  it("finds a numeric id at the start or at the end, and nothing in between", () => {
    expect(idOfPartialMessage('{"jsonrpc":"2.0","id":12,"result":{"conte', "")).toBe(12);
    expect(idOfPartialMessage('{"id":3,"jsonrpc":"2.0"', "")).toBe(3);
    expect(idOfPartialMessage('{"result":{"content":[{"id":99', 'text":"x"}]},"jsonrpc":"2.0","id":5}')).toBe(5);
    expect(idOfPartialMessage('{"result":{"id":99,', '"x"}]}}')).toBeUndefined();
    expect(idOfPartialMessage('{"jsonrpc":"2.0","id":"abc"', "")).toBeUndefined();
  });
});
