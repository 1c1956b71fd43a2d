// Folds chunks (streamed) or a completion object (non-streamed) into one assistant message, emitting the
// deltas a streaming consumer shows. The hot path narrows `unknown` by hand rather than with zod: it runs once
// per chunk, tens of thousands of times per reply, and must stay close to a bare JSON.parse loop (benchmark).
import type { Message } from "../../client/wire/messages.ts";
import { splitContentParts } from "./content-parts.ts";
import { ProviderError, errorMessageOf, excerpt } from "./errors.ts";
import type { ProviderSettings } from "./settings.ts";
import { ToolCallAssembler } from "./tool-calls.ts";
import type { AssistantMessage, ProviderDelta, ReasoningField } from "./types.ts";
import { usageMetadata } from "./usage.ts";

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/** Fields of an assistant message (or delta) the accumulator reads itself; any other is kept (messageFields). */
const READ_FIELDS = new Set([
  "role",
  "content",
  "reasoning",
  "reasoning_content",
  "reasoning_details",
  "tool_calls",
  "refusal",
]);

export class Accumulator {
  private content: string[] = [];
  private reasoning: Record<ReasoningField, string[]> = { reasoning: [], reasoning_content: [] };
  private readonly tools = new ToolCallAssembler();
  private usage: unknown = undefined;
  private groqUsage: unknown = undefined;
  private readonly extras: Obj = {};
  /** OpenAI's refusal text, sent instead of content. */
  private refusal: string[] = [];
  /** Content parts of a type the adapter does not read (content-parts.ts). */
  private otherParts: unknown[] = [];
  /** Fields of the assistant message the adapter does not read (provider-specific): written back in the tool loop. */
  private readonly messageFields: Obj = {};
  finishReason: string | null = null;
  /** Visible text has been emitted (decides early_only recovery). */
  contentEmitted = false;
  /** Chunks (or completion objects) applied: zero at the end means the backend sent nothing usable. */
  chunks = 0;

  /** One decoded stream chunk. Errors inside a 200 stream (all the dialects' forms) become ProviderErrors. */
  applyChunk(chunk: unknown, out: ProviderDelta[]): void {
    if (!isObj(chunk)) {
      throw new ProviderError(
        "invalid_chunk",
        `the backend sent a stream chunk that is not a JSON object: ${excerpt(JSON.stringify(chunk) ?? String(chunk))}; check that base_url points at a chat-completions server`,
      );
    }
    this.chunks += 1;
    this.checkError(chunk);
    const choices = chunk.choices;
    if (Array.isArray(choices) && choices.length > 0) {
      const choice = choices[0];
      if (isObj(choice)) {
        if (choice.error !== undefined && choice.error !== null) throw backendError(choice);
        const delta = isObj(choice.delta) ? choice.delta : isObj(choice.message) ? choice.message : undefined;
        if (delta) this.applyDelta(delta, out);
        if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
      }
    }
    this.applyUsage(chunk);
  }

  /** A whole non-streamed completion object. */
  applyCompletion(body: unknown): void {
    if (!isObj(body))
      throw new ProviderError(
        "invalid_response",
        `the backend answered JSON that is not an object: ${excerpt(JSON.stringify(body) ?? "")}`,
      );
    this.chunks += 1;
    this.checkError(body);
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
    if (!isObj(choice) || !isObj(choice.message)) {
      throw new ProviderError(
        "invalid_response",
        `the backend answered JSON without choices[0].message: ${excerpt(JSON.stringify(body))}; check that base_url points at a chat-completions endpoint`,
      );
    }
    const message = choice.message;
    const ignored: ProviderDelta[] = [];
    // Whole calls: each keeps its position even when the backend omits `index`.
    if (Array.isArray(message.tool_calls))
      message.tool_calls.forEach((call, i) =>
        this.tools.add(isObj(call) && call.index === undefined ? { ...call, index: i } : call),
      );
    this.applyDelta({ ...message, tool_calls: undefined }, ignored);
    if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
    this.applyUsage(body);
  }

  /** Deltas for text gathered at once (a stream request the backend answered with one JSON body). */
  replay(out: ProviderDelta[]): void {
    for (const field of ["reasoning", "reasoning_content"] as const) {
      if (this.reasoning[field].length > 0)
        out.push({ type: "reasoning", field, text: this.reasoning[field].join("") });
    }
    const text = this.text();
    if (text !== "") out.push({ type: "content", text });
  }

  /** The reply's text: its content, or the refusal when there is no content (shown instead of an empty reply). */
  private text(): string {
    const content = this.content.join("");
    return content === "" ? this.refusal.join("") : content;
  }

  finish(settings: ProviderSettings, history: Message[]): AssistantMessage {
    const metadata: Obj = { ...this.extras };
    const toolCalls = this.tools.finish();
    if (toolCalls.length > 0) metadata.tool_calls = toolCalls;
    for (const field of ["reasoning", "reasoning_content"] as const) {
      if (this.reasoning[field].length > 0) metadata[field] = this.reasoning[field].join("");
    }
    if (this.refusal.length > 0) metadata.refusal = this.refusal.join("");
    if (this.otherParts.length > 0) metadata.other_content_parts = this.otherParts;
    if (Object.keys(this.messageFields).length > 0) metadata.provider_fields = this.messageFields;
    if (this.finishReason !== null) metadata.finish_reason = this.finishReason;
    Object.assign(metadata, usageMetadata(this.usage ?? this.groqUsage, settings, history));
    return { role: "assistant", content: this.text(), metadata };
  }

  private applyDelta(delta: Obj, out: ProviderDelta[]): void {
    const text = delta.content;
    if (typeof text === "string") {
      if (text !== "") this.addContent(text, out);
    } else if (Array.isArray(text)) this.addContentParts(text, out);
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      // Shown live like content; the final text is the refusal only when there is no content (text()).
      this.refusal.push(delta.refusal);
      this.show(delta.refusal, out);
    }
    if (typeof delta.reasoning === "string" && delta.reasoning !== "")
      this.addReasoning("reasoning", delta.reasoning, out);
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "")
      this.addReasoning("reasoning_content", delta.reasoning_content, out);
    if (Array.isArray(delta.reasoning_details)) {
      const kept = Array.isArray(this.extras.reasoning_details) ? this.extras.reasoning_details : [];
      this.extras.reasoning_details = kept.concat(delta.reasoning_details);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) {
        const progress = this.tools.add(fragment);
        if (progress) out.push({ type: "tool_call", ...progress });
      }
    }
    for (const key in delta) {
      if (!READ_FIELDS.has(key)) this.keepField(key, delta[key]);
    }
  }

  private addContent(text: string, out: ProviderDelta[]): void {
    this.content.push(text);
    this.show(text, out);
  }

  private show(text: string, out: ProviderDelta[]): void {
    this.contentEmitted = true;
    // Coalesced with the previous delta of the same network read: one delta per read, not per chunk, keeps
    // the per-chunk cost of the async iteration off the hot path (the runner appends either way).
    const last = out[out.length - 1];
    if (last?.type === "content") last.text += text;
    else out.push({ type: "content", text });
  }

  private addContentParts(parts: unknown[], out: ProviderDelta[]): void {
    const split = splitContentParts(parts);
    if (split.thinking !== "") this.addReasoning("reasoning", split.thinking, out);
    if (split.text !== "") this.addContent(split.text, out);
    for (const part of split.other) this.otherParts.push(part);
  }

  /**
   * A provider-specific message field, kept for metadata.provider_fields. Streamed pieces add up as text and
   * reasoning do: strings append, lists concatenate; any other value replaces the earlier one. null means absent.
   */
  private keepField(key: string, value: unknown): void {
    if (value === null || value === undefined || key === "__proto__") return;
    const kept = this.messageFields[key];
    if (typeof kept === "string" && typeof value === "string") this.messageFields[key] = kept + value;
    else if (Array.isArray(kept) && Array.isArray(value)) this.messageFields[key] = kept.concat(value);
    else this.messageFields[key] = value;
  }

  private addReasoning(field: ReasoningField, text: string, out: ProviderDelta[]): void {
    this.reasoning[field].push(text);
    const last = out[out.length - 1];
    if (last?.type === "reasoning" && last.field === field) last.text += text;
    else out.push({ type: "reasoning", field, text });
  }

  private applyUsage(chunk: Obj): void {
    // Usage may come in the finish chunk or after it; the last one sent is the complete one.
    if (isObj(chunk.usage)) this.usage = chunk.usage;
    else if (isObj(chunk.x_groq) && isObj(chunk.x_groq.usage)) this.groqUsage = chunk.x_groq.usage;
    if (isObj(chunk.timings)) this.extras.timings = chunk.timings;
  }

  private checkError(chunk: Obj): void {
    if ((chunk.error !== undefined && chunk.error !== null) || chunk.object === "error") throw backendError(chunk);
  }
}

/** OpenAI `{error}`, OpenRouter's error chunk, vLLM's `{object: "error", message}`. */
export function backendError(value: Obj): ProviderError {
  const body = excerpt(JSON.stringify(value));
  const message = errorMessageOf(value);
  return new ProviderError(
    "backend_error",
    `the backend reported an error: ${message === undefined ? body : excerpt(message)}`,
    { body },
  );
}
