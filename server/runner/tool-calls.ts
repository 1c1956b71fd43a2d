// Runs one round of tool calls: all concurrently, results in call order. Nothing a model or a tool does can
// crash the request here: an unknown tool, arguments that are not JSON or fail the tool's schema, and a tool
// that throws each become a tool message the model can read (metadata.error: true).
import type { Message } from "../../client/wire/index.ts";
import { toolArgumentsError, type ToolCall } from "../provider/index.ts";
import type { RegisteredTool, ToolRunContext } from "../plugins/tools.ts";
import type { RunEvents } from "./events.ts";
import { runTool } from "./tool-output.ts";

export interface ToolRoundInput {
  calls: ToolCall[];
  /** The tools this agent may call, by name. */
  tools: ReadonlyMap<string, RegisteredTool>;
  events: RunEvents;
  /** Publish tool_partial events (the request streams). */
  stream: boolean;
  signal: AbortSignal;
  notify: (tool: RegisteredTool) => ToolRunContext["notify"];
  /** How many tool calls earlier rounds of the request made: this round's calls are numbered from it. */
  firstCallIndex: number;
}

export function runToolRound(input: ToolRoundInput): Promise<Message[]> {
  // runOne never rejects, so one failing call cannot lose the others' results.
  return Promise.all(input.calls.map((call, i) => runOne(call, input.firstCallIndex + i, input)));
}

async function runOne(call: ToolCall, callIndex: number, input: ToolRoundInput): Promise<Message> {
  const name = call.function.name;
  if (input.signal.aborted) return cancelledResult(call);
  const tool = input.tools.get(name);
  if (!tool) {
    const available = [...input.tools.keys()];
    return errorResult(
      call,
      `unknown tool "${name}"; ${available.length ? `available tools: ${available.join(", ")}` : "no tools are available"}`,
    );
  }
  const args = parseArguments(call, tool);
  if (typeof args === "string") return errorResult(call, `invalid arguments for tool "${name}": ${args}`);
  const parts = new PartPublisher(input.events, call.id, name, input.stream, input.signal);
  let message: Message;
  try {
    const ctx: ToolRunContext = {
      session_id: input.events.sessionId,
      request_id: input.events.requestId,
      tool_call_id: call.id,
      call_index: callIndex,
      signal: input.signal,
      emit: (part) => parts.publish(part),
      notify: input.notify(tool),
    };
    const result = await runTool(tool, args, ctx, parts.collected);
    message = {
      role: "tool",
      content: result.content,
      metadata: {
        ...result.metadata,
        tool_call_id: call.id,
        tool_name: name,
        ...(result.display ? { display: result.display } : {}),
      },
    };
  } catch (error) {
    message = input.signal.aborted
      ? cancelledResult(call)
      : errorResult(call, `tool "${name}" failed: ${(error as Error)?.message ?? String(error)}`);
  }
  parts.end(message);
  return message;
}

/** The arguments as an object that passed the tool's schema, or a description of what is wrong. */
function parseArguments(call: ToolCall, tool: RegisteredTool): Record<string, unknown> | string {
  // The adapter keeps arguments that are not JSON as the model sent them; its typed error says what to check.
  const notJson = toolArgumentsError(call);
  if (notJson) return notJson.message;
  const text = call.function.arguments;
  // Some models send "" for a tool without parameters.
  const value: unknown = text.trim() === "" ? {} : JSON.parse(text);
  const parsed = tool.validator.safeParse(value);
  if (!parsed.success)
    return parsed.error.issues
      .map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`)
      .join("; ");
  const data = parsed.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return "arguments must be a JSON object";
  return data as Record<string, unknown>;
}

function errorResult(call: ToolCall, detail: string): Message {
  return {
    role: "tool",
    content: `Error: ${detail}`,
    metadata: { tool_call_id: call.id, tool_name: call.function.name, error: true },
  };
}

export function cancelledResult(call: ToolCall): Message {
  return {
    role: "tool",
    content: "The tool call was cancelled before it finished.",
    metadata: { tool_call_id: call.id, tool_name: call.function.name, interrupted: true },
  };
}

/**
 * tool_partial events of one call: the first part opens it (`start`), later ones `stream`, the result `end`.
 * Parts are accepted only while the call runs: once the run aborts or the call is answered (`end`), a part is
 * dropped, so a tool that ignores ctx.signal cannot publish after its request's `request_completed`.
 */
class PartPublisher {
  readonly collected: unknown[] = [];
  private closed = false;
  private ended = false;

  constructor(
    private readonly events: RunEvents,
    private readonly callId: string,
    private readonly toolName: string,
    private readonly stream: boolean,
    private readonly signal: AbortSignal,
  ) {}

  publish(part: unknown): void {
    if (this.signal.aborted) this.closed = true;
    if (this.closed) return;
    const phase = this.collected.length === 0 ? "start" : "stream";
    this.collected.push(part);
    if (this.stream)
      this.events.toolPartial(this.callId, phase, { part, tool_name: this.toolName, index: this.collected.length - 1 });
  }

  /** Publishes the call's `end` (once, while the round is still running) and closes the publisher. */
  end(result: Message): void {
    if (this.ended) return;
    this.ended = this.closed = true;
    if (this.stream && this.collected.length > 0) this.events.toolPartial(this.callId, "end", { result });
  }
}
