// Reading replies: every backend dialect, errors inside a 200 stream, malformed input, debug logging.
import { describe, expect, it } from "vitest";
import {
  DIALECTS,
  chunk,
  completion,
  dialectStream,
  encodeStream,
  pieces,
} from "../../scripts/scripted-backend/index.ts";
import { contentOf, makeProvider, settingsFor, sharedBackend } from "./helpers.ts";
import { ProviderError, toolArgumentsError, type ToolCall } from "../../server/provider/index.ts";

const scripted = sharedBackend();

const reply = {
  content: "The time is noon.",
  reasoning: "User wants the time; call both tools.",
  tool_calls: [
    { id: "call_a", name: "get_time", arguments: '{"zone":"UTC","format":"24h"}' },
    { id: "call_b", name: "get_date", arguments: '{"zone":"CET"}' },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
};

describe("dialects", () => {
  it.each(DIALECTS)(
    "%s: content, reasoning, parallel tool calls and usage assemble to one message",
    async (dialect) => {
      scripted.backend.script(dialectStream(dialect, reply));
      const result = await makeProvider(settingsFor(scripted.backend.url)).run();
      expect(result.error).toBeUndefined();
      const message = result.done!.message;
      expect(message.content).toBe(reply.content);
      expect(contentOf(result)).toBe(reply.content);
      const field = ["llamacpp", "deepseek", "xai"].includes(dialect) ? "reasoning_content" : "reasoning";
      expect(message.metadata[field]).toBe(reply.reasoning);
      expect(message.metadata.tool_calls).toEqual(
        reply.tool_calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      );
      expect(message.metadata.usage_total_tokens).toBe(150);
      expect(message.metadata.usage_total_tokens_formatted).toBe("150");
      expect(result.done!.finish_reason).toBe("tool_calls");
    },
  );

  it("non-streaming: the completion object becomes the same message", async () => {
    scripted.backend.script({ kind: "json", body: completion(reply) });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run({ stream: false });
    expect(result.deltas.map((d) => d.type)).toEqual(["done"]);
    expect(result.done!.message.metadata.reasoning_content).toBe(reply.reasoning);
    expect((result.done!.message.metadata.tool_calls as unknown[]).length).toBe(2);
  });

  it("accepts a missing [DONE], a CRLF stream and usage in the finish chunk followed by a later usage chunk", async () => {
    scripted.backend.script({
      kind: "stream",
      eol: "\r\n",
      done: false,
      parts: [
        { data: { choices: [] } },
        { data: chunk({ content: "a" }) },
        { data: chunk({}, "stop", { usage: { prompt_tokens: 1, completion_tokens: 1 } }) },
        { data: { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } } },
      ],
    });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.done!.message.content).toBe("a");
    expect(result.done!.message.metadata.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });

  it("stream requests answered with one JSON body still yield the content", async () => {
    scripted.backend.script({ kind: "json", body: completion({ content: "whole" }) });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(contentOf(result)).toBe("whole");
    expect(result.done!.message.content).toBe("whole");
  });
});

describe("errors inside a 200 stream", () => {
  const cases = [
    [
      "OpenAI data: {error}",
      [{ data: chunk({ content: "x" }) }, { data: { error: { message: "overloaded", type: "server_error" } } }],
    ],
    [
      "OpenRouter error chunk with finish_reason error",
      [{ data: { ...chunk({ content: "" }, "error"), error: { code: 502, message: "provider down" } } }],
    ],
    ["vLLM object: error", [{ data: { object: "error", message: "context length exceeded", code: 400 } }]],
    ["llama.cpp error: field", [{ raw: 'error: {"code":500,"message":"slot unavailable"}\n\n' }]],
  ] as const;
  it.each([
    ["OpenRouter data: {error}", { data: { error: { code: 502, message: "upstream went away" } } }],
    ["Groq event: error", { raw: 'event: error\ndata: {"error":{"message":"upstream went away"}}\n\n' }],
  ] as const)(
    "%s in the same network read as the last deltas: every delta parsed before it is published",
    async (_name, errorPart) => {
      const text = "Here is the start of a reply that then fails"; // 44 characters, 11 chunks
      const parts = [...pieces(text).map((piece) => ({ data: chunk({ content: piece }) })), errorPart];
      scripted.backend.script({ kind: "stream", parts, done: false, writeSize: 1 << 20 });
      const result = await makeProvider(settingsFor(scripted.backend.url)).run();
      expect(result.error?.code).toBe("backend_error");
      expect(result.error?.message).toMatch(/upstream went away/);
      expect(contentOf(result)).toBe(text);
    },
  );

  it.each(cases)("%s becomes a backend_error with the scripted.backend's message", async (_name, parts) => {
    scripted.backend.script({ kind: "stream", parts: [...parts] });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error?.code).toBe("backend_error");
    expect(result.error?.message).toMatch(/overloaded|provider down|context length exceeded|slot unavailable/);
  });
});

describe("bad input from the scripted.backend", () => {
  it("an HTML 404 from a wrong base_url names the version prefix", async () => {
    const { run } = makeProvider(settingsFor(scripted.backend.url.replace(/\/v1$/, "")));
    const result = await run();
    expect(result.error?.code).toBe("not_found");
    expect(result.error?.message).toContain("HTML page");
    expect(result.error?.message).toContain("version prefix");
  });

  it("a non-JSON error page names what was sent", async () => {
    scripted.backend.script({
      kind: "raw",
      status: 502,
      contentType: "text/plain",
      body: "Bad Gateway: upstream closed",
    });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error?.code).toBe("http_status");
    expect(result.error?.message).toContain("Bad Gateway: upstream closed");
  });

  it("malformed JSON in a 200 non-streamed reply is an invalid_response", async () => {
    scripted.backend.script({ kind: "raw", contentType: "application/json", body: '{"choices": [' });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run({ stream: false });
    expect(result.error?.code).toBe("invalid_response");
  });

  it("a 200 HTML page for a stream request is an invalid_response, not an empty reply", async () => {
    scripted.backend.script({ kind: "raw", contentType: "text/html", body: "<!doctype html><title>llama.cpp</title>" });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error?.code).toBe("invalid_response");
    expect(result.error?.message).toContain("HTML");
  });

  it("a stream event that is not JSON, or not an object, is an invalid_chunk", async () => {
    scripted.backend.script(
      { kind: "stream", parts: [{ raw: "data: {not json\n\n" }] },
      { kind: "stream", parts: [{ data: [1, 2] }] },
    );
    expect((await makeProvider(settingsFor(scripted.backend.url)).run()).error?.code).toBe("invalid_chunk");
    expect((await makeProvider(settingsFor(scripted.backend.url)).run()).error?.code).toBe("invalid_chunk");
  });

  it("tool arguments that are not JSON are kept as sent and named by a typed invalid_tool_arguments error", async () => {
    scripted.backend.script({
      kind: "stream",
      parts: [{ data: chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: '{"a": ' } }] }) }],
    });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error).toBeUndefined();
    const call = (result.done?.message.metadata.tool_calls as ToolCall[])[0]!;
    expect(call.function.arguments).toBe('{"a": ');
    const error = toolArgumentsError(call);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error?.code).toBe("invalid_tool_arguments");
    expect(error?.message).toContain('"f"');
    expect(toolArgumentsError({ ...call, function: { name: "f", arguments: "{}" } })).toBeUndefined();
  });

  it("a connection refused is a connection error naming base_url", async () => {
    const result = await makeProvider(settingsFor("http://127.0.0.1:9/v1")).run();
    expect(result.error?.code).toBe("connection");
    expect(result.error?.message).toContain("base_url");
  });
});

describe("large and fragmented streams over HTTP", () => {
  it("one 256 KiB event delivered in 1-byte writes", async () => {
    const big = "y".repeat(256 * 1024);
    scripted.backend.script({ kind: "stream", parts: [{ data: chunk({ content: big }) }], writeSize: 1 });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.done!.message.content.length).toBe(big.length);
  });

  it("20,000 small chunks", async () => {
    const parts = Array.from({ length: 20_000 }, (_, i) => ({ data: chunk({ content: String(i % 10) }) }));
    scripted.backend.script({ kind: "stream", parts, writeSize: 16 * 1024 });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.done!.message.content.length).toBe(20_000);
  });
});

describe("a large first read", () => {
  it("reasoning, multi-byte content, a fragmented tool call and [DONE] in one write assemble exactly", async () => {
    // Before the first delta the reader parses a large read in slices; slice ends fall inside events and inside
    // multi-byte characters here.
    const words = Array.from({ length: 300 }, (_, i) => `héllo 🌍 ${i} `);
    const parts = [
      ...Array.from({ length: 50 }, (_, i) => ({ data: chunk({ reasoning: `r${i} ` }) })),
      ...words.map((w) => ({ data: chunk({ content: w }) })),
      {
        data: chunk({
          tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":' } }],
        }),
      },
      { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '"é"}' } }] }) },
      { data: chunk({}, "tool_calls") },
    ];
    const body = encodeStream(parts);
    expect(body.length).toBeGreaterThan(16 * 1024);
    scripted.backend.script({ kind: "bytes", contentType: "text/event-stream", body });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error).toBeUndefined();
    const message = result.done!.message;
    expect(message.content).toBe(words.join(""));
    expect(contentOf(result)).toBe(words.join(""));
    expect(message.metadata.reasoning).toBe(Array.from({ length: 50 }, (_, i) => `r${i} `).join(""));
    expect(message.metadata.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"é"}' } },
    ]);
    expect(result.done!.finish_reason).toBe("tool_calls");
    expect(result.deltas[0]).toEqual({ type: "reasoning", field: "reasoning", text: "r0 " });
  });
});

describe("debug_stream", () => {
  it("logs each decoded chunk with secrets redacted", async () => {
    const secret = "sk-live-abcdef";
    scripted.backend.script({
      kind: "stream",
      parts: [
        { data: chunk({ content: `echo ${secret}` }) },
        { data: { ...chunk({}, "stop"), api_key: "other-secret" } },
      ],
    });
    const logged: unknown[] = [];
    const log = { info: (o: object) => void logged.push(o), warn: () => undefined };
    const result = await makeProvider(settingsFor(scripted.backend.url, { api_key: secret, debug_stream: true }), {
      log,
    }).run();
    expect(result.error).toBeUndefined();
    expect(logged).toHaveLength(2);
    const text = JSON.stringify(logged);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("other-secret");
    expect(text).toContain("echo [redacted]");
  });
});
