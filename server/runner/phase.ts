// One phase of a request: one provider completion turned into events. `assistant_message` start, then (when
// the request streams) a `partial` per content or reasoning delta, markers for retries and stream recoveries,
// then `assistant_message` end, always, also when the completion fails or is cancelled. The caller persists
// the reply (or what was streamed before a failure) and publishes `final` with it.
import type { Message } from "../../client/wire/index.ts";
import type { Provider, ProviderDelta, ProviderRequest } from "../provider/index.ts";
import type { RunEvents } from "./events.ts";
import { interruptedReply, type InterruptionReason } from "./interruption.ts";

export type Done = Extract<ProviderDelta, { type: "done" }>;

export interface PhaseInput {
  provider: Provider;
  request: ProviderRequest;
  events: RunEvents;
  log: { warn(obj: object, msg: string): void };
}

/**
 * What the current attempt has streamed: kept so an interrupted phase can persist what the user already saw.
 * A stream recovery re-issues the request, so the buffer starts over with it (the replay repeats the text).
 */
export class PhaseBuffer {
  content = "";
  reasoning: Record<string, string> = {};

  reset(): void {
    this.content = "";
    this.reasoning = {};
  }

  /** The streamed part as an assistant message marked interrupted, or undefined when nothing was streamed. */
  interrupted(reason: InterruptionReason): Message | undefined {
    return interruptedReply(this.content, this.reasoning, reason);
  }
}

export async function streamPhase(input: PhaseInput, buffer: PhaseBuffer): Promise<Done> {
  const { events, request } = input;
  const stream = request.stream;
  events.assistantMessage("start");
  try {
    for await (const delta of input.provider.complete(request)) {
      if (delta.type === "done") return delta;
      onDelta(delta, buffer, stream ? events : undefined, input.log);
    }
    throw new Error("the provider ended the completion without a reply");
  } finally {
    events.assistantMessage("end");
  }
}

/** Applies one delta to the buffer and, for a streamed request, publishes it. */
function onDelta(
  delta: Exclude<ProviderDelta, { type: "done" }>,
  buffer: PhaseBuffer,
  events: RunEvents | undefined,
  log: PhaseInput["log"],
): void {
  switch (delta.type) {
    case "content":
      buffer.content += delta.text;
      events?.partial(delta.text);
      return;
    case "reasoning":
      buffer.reasoning[delta.field] = (buffer.reasoning[delta.field] ?? "") + delta.text;
      events?.partial("", { [delta.field]: delta.text });
      return;
    case "tool_call":
      // Tool calls arrive whole in the reply's metadata.tool_calls and are announced by `tool_calls`.
      return;
    case "retry": {
      const { type: _type, ...retry } = delta;
      log.warn(retry, "provider request retried before streaming");
      events?.partial("", { retry });
      return;
    }
    case "recovery": {
      // The request is re-issued from the start: what this attempt streamed is void. Clients drop the
      // phase's text at this marker; in aggressive mode the replayed text follows as new partials.
      const { type: _type, ...recovery } = delta;
      log.warn(recovery, "provider stream recovered by re-issuing the request");
      buffer.reset();
      events?.partial("", { recovery: { ...recovery, restart: true } });
      return;
    }
  }
}
