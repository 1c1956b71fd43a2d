// The events one request publishes, built in one place so their shapes follow client/wire/events.ts (checked
// by the tests). Standalone events (lifecycle, streaming, tool progress) are published here and join the
// store's group commit; `final` and `tool_results` are only built here, because they must be published inside
// the SessionService.change that persists their messages (docs/runner.md R3). Every shape is checked against
// client/wire/events.ts by the tests, which parse each published event with coreEventSchema.
import type { Message } from "../../client/wire/index.ts";
import type { EventStore, PublishInput } from "../events/event-store.ts";
import type { ToolCall } from "../provider/index.ts";

export class RunEvents {
  constructor(
    private readonly events: EventStore,
    readonly sessionId: string,
    readonly requestId: string,
    /**
     * Wraps the publish of `request_completed`, so the coordinator can delete the request's active_requests row
     * in the same transaction (server/runner/recovery.ts).
     */
    private readonly completion: (publish: () => void) => void = (publish) => publish(),
  ) {}

  private get ids() {
    return { session_id: this.sessionId, request_id: this.requestId };
  }

  requestStarted(stream: boolean): PublishInput {
    return { type: "request_started", ...this.ids, stream };
  }

  assistantMessage(phase: "start" | "end"): void {
    this.events.publish({ type: "assistant_message", ...this.ids, phase });
  }

  /** One streamed piece: visible text, a reasoning delta, or a marker whose metadata says what happened. */
  partial(content: string, metadata?: Record<string, unknown>): void {
    const message = metadata
      ? { role: "assistant" as const, content, metadata }
      : { role: "assistant" as const, content };
    this.events.publish({ type: "partial", ...this.ids, message });
  }

  toolCalls(toolCalls: ToolCall[]): void {
    this.events.publish({ type: "tool_calls", ...this.ids, tool_calls: toolCalls.map((call) => ({ ...call })) });
  }

  toolPartial(toolCallId: string, phase: "start" | "stream" | "end", payload: Record<string, unknown>): void {
    this.events.publish({ type: "tool_partial", ...this.ids, tool_call_id: toolCallId, phase, payload });
  }

  final(messages: Message[]): PublishInput {
    return { type: "final", ...this.ids, messages };
  }

  toolResults(messages: Message[]): PublishInput {
    return { type: "tool_results", ...this.ids, messages };
  }

  /** `reason`: the person's Stop ("user") or the server shutting down ("shutdown"). */
  cancelled(reason: "user" | "shutdown"): void {
    this.events.publish({ type: "request_cancelled", ...this.ids, reason });
  }

  /** `reason` "crash": the request was found unfinished at start (recovery.ts). */
  error(detail: string, reason?: "crash"): void {
    this.events.publish({ type: "error", ...this.ids, detail, ...(reason ? { reason } : {}) });
  }

  completed(): void {
    this.completion(() => void this.events.publish({ type: "request_completed", ...this.ids }));
  }
}
