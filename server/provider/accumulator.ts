// Folds chunks (streamed) or a completion object (non-streamed) into one assistant message, emitting the
// deltas a streaming consumer shows. The hot path narrows `unknown` by hand rather than with zod: it runs once
// per chunk, tens of thousands of times per reply, and must stay close to a bare JSON.parse loop (benchmark).
import type { Message } from "../../client/wire/messages.ts";
import { ProviderError, errorMessageOf, excerpt } from "./errors.ts";
import type { ProviderSettings } from "./settings.ts";
import { ToolCallAssembler } from "./tool-calls.ts";
import type { AssistantMessage, ProviderDelta, ReasoningField } from "./types.ts";
import { usageMetadata } from "./usage.ts";

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

export class Accumulator {
  private content: string[] = [];
  private reasoning: Record<ReasoningField, string[]> = { reasoning: [], reasoning_content: [] };
  private readonly tools = new ToolCallAssembler();
  private usage: unknown = undefined;
  private groqUsage: unknown = undefined;
  private readonly extras: Obj = {};
  finishReason: string | null = null;
  /** Visible text has been emitted (decides early_only recovery). */
  contentEmitted = false;
  /** Chunks (or completion objects) applied: zero at the end means the backend sent nothing usable. */
  chunks = 0;

  /** One decoded stream chunk. Errors inside a 200 stream (all the dialects' forms) become ProviderErrors. */
  applyChunk(chunk: unknown, out: ProviderDelta[]): void {
    if (!isObj(chunk)) {
      throw new ProviderError("invalid_chunk", `the backend sent a stream chunk that is not a JSON object: ${excerpt(JSON.stringify(chunk) ?? String(chunk))}; check that base_url points at a chat-completions server`);
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
    if (!isObj(body)) throw new ProviderError("invalid_response", `the backend answered JSON that is not an object: ${excerpt(JSON.stringify(body) ?? "")}`);
    this.chunks += 1;
    this.checkError(body);
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
    if (!isObj(choice) || !isObj(choice.message)) {
      throw new ProviderError("invalid_response", `the backend answered JSON without choices[0].message: ${excerpt(JSON.stringify(body))}; check that base_url points at a chat-completions endpoint`);
    }
    const message = choice.message;
    const ignored: ProviderDelta[] = [];
    // Whole calls: each keeps its position even when the backend omits `index`.
    if (Array.isArray(message.tool_calls)) message.tool_calls.forEach((call, i) => this.tools.add(isObj(call) && call.index === undefined ? { ...call, index: i } : call));
    this.applyDelta({ ...message, tool_calls: undefined }, ignored);
    if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
    this.applyUsage(body);
  }

  /** Deltas for text gathered at once (a stream request the backend answered with one JSON body). */
  replay(out: ProviderDelta[]): void {
    for (const field of ["reasoning", "reasoning_content"] as const) {
      if (this.reasoning[field].length > 0) out.push({ type: "reasoning", field, text: this.reasoning[field].join("") });
    }
    if (this.content.length > 0) out.push({ type: "content", text: this.content.join("") });
  }

  finish(settings: ProviderSettings, history: Message[]): AssistantMessage {
    const metadata: Obj = { ...this.extras };
    const toolCalls = this.tools.finish();
    if (toolCalls.length > 0) metadata.tool_calls = toolCalls;
    for (const field of ["reasoning", "reasoning_content"] as const) {
      if (this.reasoning[field].length > 0) metadata[field] = this.reasoning[field].join("");
    }
    if (this.finishReason !== null) metadata.finish_reason = this.finishReason;
    Object.assign(metadata, usageMetadata(this.usage ?? this.groqUsage, settings, history));
    return { role: "assistant", content: this.content.join(""), metadata };
  }

  private applyDelta(delta: Obj, out: ProviderDelta[]): void {
    const text = delta.content;
    if (typeof text === "string" && text !== "") {
      this.content.push(text);
      this.contentEmitted = true;
      // Coalesced with the previous delta of the same network read: one delta per read, not per chunk, keeps
      // the per-chunk cost of the async iteration off the hot path (the runner appends either way).
      const last = out[out.length - 1];
      if (last?.type === "content") last.text += text;
      else out.push({ type: "content", text });
    }
    if (typeof delta.reasoning === "string" && delta.reasoning !== "") this.addReasoning("reasoning", delta.reasoning, out);
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") this.addReasoning("reasoning_content", delta.reasoning_content, out);
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
  return new ProviderError("backend_error", `the backend reported an error: ${message === undefined ? body : excerpt(message)}`, { body });
}
