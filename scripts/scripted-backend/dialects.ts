// Streams in the dialect of each backend docs/provider.md "What real backends send" describes, built from one
// description of the reply. Tests use them to prove the adapter reads every dialect to the same message.
import type { Scenario, StreamPart } from "./scenarios.ts";

export interface ReplyToolCall {
  id: string;
  name: string;
  arguments: string;
  /** Provider-specific fields on the call (Gemini: `extra_content: {google: {thought_signature}}`), on its first fragment. */
  extra?: Record<string, unknown>;
}

export interface Reply {
  content?: string;
  reasoning?: string;
  /** OpenAI's refusal, streamed as `refusal` deltas (and `message.refusal` in a completion). */
  refusal?: string;
  tool_calls?: ReplyToolCall[];
  /** Provider-specific fields of the assistant message, sent in a delta of their own (or on the message). */
  message_fields?: Record<string, unknown>;
  usage?: Record<string, unknown>;
  model?: string;
}

/** `mistral_thinking`: Mistral's reasoning models, whose content is a list of text and thinking parts. */
export const DIALECTS = [
  "openai",
  "azure",
  "llamacpp",
  "ollama",
  "vllm",
  "openrouter",
  "groq",
  "mistral",
  "mistral_thinking",
  "deepseek",
  "anthropic",
  "lmstudio",
  "xai",
  "gemini",
] as const;
export type Dialect = (typeof DIALECTS)[number];

type Obj = Record<string, unknown>;

/** Splits text into word-sized pieces, as models stream them. */
export function pieces(text: string, size = 4): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function chunk(delta: Obj, finish: string | null = null, extra: Obj = {}): Obj {
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    created: 1700000000,
    model: "scripted",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
}

const usageChunk = (usage: Obj, extra: Obj = {}): Obj => ({
  id: "chatcmpl-scripted",
  object: "chat.completion.chunk",
  choices: [],
  usage,
  ...extra,
});

/** Mistral's content parts: a text part, and a thinking part holding its own text parts. */
const textPart = (text: string): Obj => ({ type: "text", text });
const thinkingPart = (text: string): Obj => ({ type: "thinking", thinking: [textPart(text)] });

/**
 * A non-streamed chat.completion object for the same reply. `field` "parts" puts reasoning and content in one
 * list of parts (Mistral's reasoning models).
 */
export function completion(
  reply: Reply,
  field: "reasoning" | "reasoning_content" | "parts" = "reasoning_content",
): Obj {
  const message: Obj = { role: "assistant", ...reply.message_fields, content: reply.content ?? null };
  if (field === "parts")
    message.content = [
      ...(reply.reasoning ? [thinkingPart(reply.reasoning)] : []),
      ...(reply.content ? [textPart(reply.content)] : []),
    ];
  else if (reply.reasoning) message[field] = reply.reasoning;
  if (reply.refusal) message.refusal = reply.refusal;
  if (reply.tool_calls)
    message.tool_calls = reply.tool_calls.map((c) => ({
      ...c.extra,
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  const body: Obj = {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    model: reply.model ?? "scripted",
    choices: [{ index: 0, message, finish_reason: reply.tool_calls ? "tool_calls" : "stop" }],
  };
  if (reply.usage) body.usage = reply.usage;
  return body;
}

interface Style {
  reasoningField: "reasoning" | "reasoning_content";
  firstDelta: Obj | undefined;
  toolStyle: "fragments" | "whole" | "whole-no-index" | "fragments-name-empty" | "fragments-index-from-1";
  usagePlace: "after" | "finish" | "finish+groq";
  preamble: StreamPart[];
  eol: "\n" | "\r\n";
  extraFinish: Obj;
  /** "parts": reasoning and content as lists of parts in `content` (Mistral's reasoning models). */
  contentStyle: "text" | "parts";
}

const base: Style = {
  reasoningField: "reasoning",
  firstDelta: { role: "assistant", content: "" },
  toolStyle: "fragments",
  usagePlace: "after",
  preamble: [],
  eol: "\n",
  extraFinish: {},
  contentStyle: "text",
};

const STYLES: Record<Dialect, Style> = {
  openai: base,
  azure: {
    ...base,
    eol: "\r\n",
    preamble: [
      {
        data: {
          id: "",
          object: "",
          choices: [],
          prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
        },
      },
    ],
  },
  llamacpp: {
    ...base,
    reasoningField: "reasoning_content",
    firstDelta: { role: "assistant", content: null },
    preamble: [{ comment: "" }],
    extraFinish: { timings: { prompt_n: 10, predicted_n: 5 } },
  },
  ollama: { ...base, toolStyle: "whole" },
  vllm: { ...base, toolStyle: "fragments-name-empty" },
  openrouter: { ...base, preamble: [{ comment: " OPENROUTER PROCESSING" }] },
  groq: { ...base, toolStyle: "whole", usagePlace: "finish+groq" },
  mistral: { ...base, toolStyle: "whole-no-index", usagePlace: "finish" },
  mistral_thinking: { ...base, toolStyle: "whole-no-index", usagePlace: "finish", contentStyle: "parts" },
  deepseek: { ...base, reasoningField: "reasoning_content", usagePlace: "finish" },
  anthropic: { ...base, toolStyle: "fragments-index-from-1" },
  lmstudio: { ...base, toolStyle: "fragments-name-empty" },
  xai: { ...base, reasoningField: "reasoning_content", toolStyle: "whole" },
  gemini: { ...base, toolStyle: "whole-no-index" },
};

/** The reply as a stream in the given dialect. */
export function dialectStream(dialect: Dialect, reply: Reply): Scenario & { kind: "stream" } {
  const style = STYLES[dialect];
  const parts: StreamPart[] = [...style.preamble];
  if (style.firstDelta) parts.push({ data: chunk(style.firstDelta) });
  if (reply.message_fields) parts.push({ data: chunk(reply.message_fields) });
  const asParts = style.contentStyle === "parts";
  for (const piece of pieces(reply.reasoning ?? ""))
    parts.push({ data: chunk(asParts ? { content: [thinkingPart(piece)] } : { [style.reasoningField]: piece }) });
  for (const piece of pieces(reply.refusal ?? "")) parts.push({ data: chunk({ refusal: piece }) });
  for (const piece of pieces(reply.content ?? ""))
    parts.push({ data: chunk({ content: asParts ? [textPart(piece)] : piece }) });
  const toolParts = toolChunks(style, reply.tool_calls ?? [], reply.content ? 1 : 0);
  const finishReason = reply.tool_calls?.length ? "tool_calls" : "stop";
  const finishExtra: Obj = { ...style.extraFinish };
  if (reply.usage && style.usagePlace !== "after") finishExtra.usage = reply.usage;
  if (reply.usage && style.usagePlace === "finish+groq") finishExtra.x_groq = { id: "req_1", usage: reply.usage };
  if (style.toolStyle === "whole-no-index" && toolParts.length > 0) {
    // Mistral: the calls arrive in the same chunk as finish_reason and usage.
    const calls = toolParts.flatMap(
      (p) => ((p as { data: Obj }).data.choices as Array<{ delta: { tool_calls: unknown[] } }>)[0]!.delta.tool_calls,
    );
    parts.push({ data: chunk({ tool_calls: calls }, finishReason, finishExtra) });
  } else {
    parts.push(...toolParts);
    parts.push({ data: chunk({}, finishReason, finishExtra) });
  }
  if (reply.usage && style.usagePlace === "after")
    parts.push({ data: usageChunk(reply.usage, dialect === "llamacpp" ? { timings: style.extraFinish.timings } : {}) });
  return { kind: "stream", parts, eol: style.eol };
}

function toolChunks(style: Style, calls: ReplyToolCall[], firstIndex: number): StreamPart[] {
  const parts: StreamPart[] = [];
  calls.forEach((call, i) => {
    const index = style.toolStyle === "fragments-index-from-1" ? i + firstIndex : i;
    const whole = {
      ...call.extra,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    };
    if (style.toolStyle === "whole") parts.push({ data: chunk({ tool_calls: [{ index, ...whole }] }) });
    else if (style.toolStyle === "whole-no-index") parts.push({ data: chunk({ tool_calls: [whole] }) });
    else {
      parts.push({
        data: chunk({
          tool_calls: [
            { index, ...call.extra, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        }),
      });
      for (const piece of pieces(call.arguments, 5)) {
        const fragment: Obj = { index, function: { arguments: piece } };
        if (style.toolStyle === "fragments-name-empty") {
          fragment.id = call.id;
          (fragment.function as Obj).name = i % 2 === 0 ? "" : null;
        }
        parts.push({ data: chunk({ tool_calls: [fragment] }) });
      }
    }
  });
  return parts;
}
