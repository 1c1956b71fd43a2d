// The SSE parser on its own: framings of docs/provider.md "What real backends send", and linear cost on hostile deliveries.
import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "../../server/provider/sse.ts";

function parse(inputs: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const input of inputs) parser.feed(Buffer.from(input));
  parser.end();
  return events;
}

describe("SseParser", () => {
  it("reads LF, CRLF and CR line ends, also when CRLF is split across reads", () => {
    expect(parse(["data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r", "\n\r", "\n"]).map((e) => e.data)).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
  });

  it("skips comments and keep-alives, joins multi-line data with \\n", () => {
    const comments: string[] = [];
    const events: SseEvent[] = [];
    const parser = new SseParser(
      (e) => events.push(e),
      (c) => comments.push(c),
    );
    parser.feed(Buffer.from(': OPENROUTER PROCESSING\n\n:\n\ndata: {"a":\ndata: 1}\n\n'));
    parser.end();
    expect(comments).toEqual([" OPENROUTER PROCESSING", ""]);
    expect(events).toEqual([{ event: "message", data: '{"a":\n1}' }]);
  });

  it("dispatches a last event without its blank line, and [DONE] without a trailing newline", () => {
    expect(parse(["data: x\n\ndata: [DONE]"]).map((e) => e.data)).toEqual(["x", "[DONE]"]);
  });

  it("reports the non-standard error: field of older llama.cpp as an error event", () => {
    expect(parse(['error: {"message":"context too long"}\n\ndata: [DONE]\n\n'])).toEqual([
      { event: "error", data: '{"message":"context too long"}' },
      { event: "message", data: "[DONE]" },
    ]);
  });

  it("decodes multi-byte UTF-8 split between reads", () => {
    const bytes = Buffer.from("data: héllo 🌍\n\n");
    const events: SseEvent[] = [];
    const parser = new SseParser((e) => events.push(e));
    for (const byte of bytes) parser.feed(Uint8Array.of(byte));
    parser.end();
    expect(events[0]!.data).toBe("héllo 🌍");
  });

  it("stays linear: one 1 MiB event fed one byte at a time is scanned once", () => {
    const payload = "x".repeat(1024 * 1024);
    const bytes = Buffer.from(`data: ${payload}\n\n`);
    const events: SseEvent[] = [];
    const parser = new SseParser((e) => events.push(e));
    for (let i = 0; i < bytes.length; i++) parser.feed(bytes.subarray(i, i + 1));
    parser.end();
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(payload.length);
    // Each character is scanned once and copied once when the line is joined; re-scanning would be ~size²/2.
    expect(parser.charsScanned).toBeLessThanOrEqual(2 * bytes.length);
  });

  it("reads 20,000 small events delivered in arbitrary splits", () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `data: {"i":${i}}\n\n`).join("");
    const inputs: string[] = [];
    for (let i = 0; i < text.length; i += 97) inputs.push(text.slice(i, i + 97));
    const events = parse(inputs);
    expect(events).toHaveLength(20_000);
    expect(events[19_999]!.data).toBe('{"i":19999}');
  });
  it("gives the same events for every split of a stream mixing fields, multi-line data and line ends", () => {
    // The LF-only reads take a fast path (a one-line `data:` event is dispatched at once); reads with a CR take
    // the general loop. Every way of cutting the stream in two must agree with reading it whole.
    const text =
      'event: delta\ndata: {"a":1}\n\n' +
      'error: {"message":"boom"}\ndata: after-error\n\n' +
      "data: one\ndata: two\n\n" +
      ": keep-alive\n\n" +
      "data:nospace\n\n" +
      "data\n\n" +
      "id: 7\nretry: 10\ndata: x\r\n\r\n" +
      "data: cr\r\r" +
      "event: error\ndata: named\n\n" +
      "data: last\n\n";
    const expected: SseEvent[] = [
      { event: "delta", data: '{"a":1}' },
      { event: "error", data: '{"message":"boom"}' },
      { event: "message", data: "after-error" },
      { event: "message", data: "one\ntwo" },
      { event: "message", data: "nospace" },
      { event: "message", data: "" },
      { event: "message", data: "x" },
      { event: "message", data: "cr" },
      { event: "error", data: "named" },
      { event: "message", data: "last" },
    ];
    expect(parse([text])).toEqual(expected);
    for (let cut = 1; cut < text.length; cut++) expect(parse([text.slice(0, cut), text.slice(cut)])).toEqual(expected);
    expect(parse([...text])).toEqual(expected);
  });
});
