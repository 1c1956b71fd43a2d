// Message shapes of real backends beyond plain strings (docs/provider.md "What real backends send"): content as
// a list of parts (Mistral), refusals (OpenAI), provider-specific fields on tool calls and on the assistant message
// (Gemini), streamed and whole, played by the scripted backend over HTTP.
import { describe, expect, it } from "vitest";
import { chunk, completion, dialectStream } from "../../scripts/scripted-backend/index.ts";
import { contentOf, makeProvider, settingsFor, sharedBackend } from "./helpers.ts";

const scripted = sharedBackend();

const reasoningOf = (deltas: Array<{ type: string }>) =>
  deltas
    .filter((d): d is { type: "reasoning"; field: string; text: string } => d.type === "reasoning")
    .map((d) => d.text)
    .join("");

describe("content as a list of parts (Mistral's reasoning models)", () => {
  const reply = { reasoning: "The user greets; answer briefly.", content: "Hello there, how can I help?" };

  it("streamed: text parts are content, thinking parts are reasoning, live and in the final message", async () => {
    scripted.backend.script(dialectStream("mistral_thinking", reply));
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error).toBeUndefined();
    expect(contentOf(result)).toBe(reply.content);
    expect(reasoningOf(result.deltas)).toBe(reply.reasoning);
    expect(result.done!.message.content).toBe(reply.content);
    expect(result.done!.message.metadata.reasoning).toBe(reply.reasoning);
  });

  it("whole message (stream: false): the same split", async () => {
    scripted.backend.script({ kind: "json", body: completion(reply, "parts") });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run({ stream: false });
    expect(result.done!.message.content).toBe(reply.content);
    expect(result.done!.message.metadata.reasoning).toBe(reply.reasoning);
  });

  it("parts of unknown types (also inside thinking) are kept in metadata.other_content_parts, never fatal", async () => {
    const image = { type: "image_url", image_url: { url: "https://example.invalid/a.png" } };
    const reference = { type: "reference", reference_ids: [1] };
    scripted.backend.script({
      kind: "stream",
      parts: [
        { data: chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "hm" }, reference] }] }) },
        { data: chunk({ content: [image, { type: "text", text: "See" }, 42] }) },
        { data: chunk({ content: [{ type: "text", text: " this." }] }, "stop") },
      ],
    });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(result.error).toBeUndefined();
    expect(result.done!.message.content).toBe("See this.");
    expect(result.done!.message.metadata.reasoning).toBe("hm");
    expect(result.done!.message.metadata.other_content_parts).toEqual([
      { type: "thinking", thinking: [reference] },
      image,
      42,
    ]);
  });
});

describe("refusals (OpenAI)", () => {
  const refusal = "I'm sorry, I can't help with that.";

  it("streamed: shown live as the reply's text and kept in metadata.refusal", async () => {
    scripted.backend.script(dialectStream("openai", { refusal }));
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    expect(contentOf(result)).toBe(refusal);
    expect(result.done!.message.content).toBe(refusal);
    expect(result.done!.message.metadata.refusal).toBe(refusal);
  });

  it("whole message: content null and a refusal give the refusal as text", async () => {
    scripted.backend.script({ kind: "json", body: completion({ refusal }) });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run({ stream: false });
    expect(result.done!.message.content).toBe(refusal);
    expect(result.done!.message.metadata.refusal).toBe(refusal);
  });

  it("with content as well, the content is the reply's text and the refusal stays in metadata", async () => {
    scripted.backend.script({
      kind: "json",
      body: completion({ content: "Partly: here is what I can say.", refusal }),
    });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run({ stream: false });
    expect(result.done!.message.content).toBe("Partly: here is what I can say.");
    expect(result.done!.message.metadata.refusal).toBe(refusal);
  });
});

describe("provider-specific fields (Gemini's thought_signature on tool calls)", () => {
  const signature = { google: { thought_signature: "c2lnbmF0dXJlLTE=" } };
  const reply = {
    content: "Let me look.",
    tool_calls: [
      { id: "call_a", name: "get_time", arguments: '{"zone":"UTC"}', extra: { extra_content: signature } },
      { id: "call_b", name: "get_date", arguments: "{}" },
    ],
    message_fields: { provider_state: { turn: 3 }, annotations: [{ type: "note" }] },
  };
  const expectedCalls = [
    {
      id: "call_a",
      type: "function",
      function: { name: "get_time", arguments: '{"zone":"UTC"}' },
      extra_content: signature,
    },
    { id: "call_b", type: "function", function: { name: "get_date", arguments: "{}" } },
  ];

  it.each(["gemini", "openai"] as const)(
    "%s stream: unknown call fields stay on the call, unknown message fields in metadata.provider_fields",
    async (dialect) => {
      scripted.backend.script(dialectStream(dialect, reply));
      const result = await makeProvider(settingsFor(scripted.backend.url)).run();
      expect(result.error).toBeUndefined();
      expect(result.done!.message.metadata.tool_calls).toEqual(expectedCalls);
      expect(result.done!.message.metadata.provider_fields).toEqual(reply.message_fields);
    },
  );

  it("whole message (stream: false): the same", async () => {
    scripted.backend.script({ kind: "json", body: completion(reply) });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run({ stream: false });
    expect(result.done!.message.metadata.tool_calls).toEqual(expectedCalls);
    expect(result.done!.message.metadata.provider_fields).toEqual(reply.message_fields);
  });

  it("streamed string fields add up; null fields are absent; __proto__ is not taken", async () => {
    scripted.backend.script({
      kind: "stream",
      parts: [
        {
          raw: 'data: {"choices":[{"index":0,"delta":{"role":"assistant","audio":null,"__proto__":{"polluted":true},"summary":"a"}}]}\n\n',
        },
        { data: chunk({ content: "x", summary: "b" }, "stop") },
      ],
    });
    const result = await makeProvider(settingsFor(scripted.backend.url)).run();
    const fields = result.done!.message.metadata.provider_fields as Record<string, unknown>;
    expect(fields).toEqual({ summary: "ab" });
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });
});
