// The life of one request after its user message is stored: phases (provider completion → `final`) and tool
// rounds (`tool_calls` → tools → `tool_results`) until the model answers without tool calls, then
// `request_completed`. A failure publishes `error` then `request_completed`; a cancel `request_cancelled` then
// `request_completed`. Whatever ends the run, the session stays valid for the next request: streamed text is
// kept (metadata.interrupted) and every persisted tool call has a tool result (docs/runner.md R6, R7).
import type { Message, Session } from "../../client/wire/index.ts";
import type { FastifyBaseLogger } from "fastify";
import type { ResolvedAgent } from "../config/agents.ts";
import type { EventStore, PublishInput } from "../events/event-store.ts";
import { ProviderError, type Provider, type ToolCall } from "../provider/index.ts";
import { withToolImages } from "../mcp/tool-images.ts";
import { ToolRegistry } from "../plugins/tool-registry.ts";
import type { RegisteredTool, ToolRunContext } from "../plugins/tools.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { stampAppended } from "../sessions/turn-versions.ts";
import type { CheckpointSignal } from "./checkpoints.ts";
import type { RunEvents } from "./events.ts";
import { PhaseBuffer, streamPhase } from "./phase.ts";
import { stopReasonOf } from "./interruption.ts";
import { runToolRound } from "./tool-calls.ts";
import { citationsOf, passagesMessage } from "../documents/retrieval.ts";
import type { Passage } from "../documents/store.ts";
import type { Retrieval } from "../documents/turn-retrieval.ts";

export interface RunDeps {
  sessions: SessionService;
  events: EventStore;
  checkpoints: CheckpointSignal;
  log: FastifyBaseLogger;
  maxToolIterations: number;
  provider: Provider;
  agent: ResolvedAgent;
  /** The agent's tools, once plugins are loaded (a load failure rejects: the run fails with `error`). */
  tools: () => Promise<RegisteredTool[]>;
  notify: (tool: RegisteredTool) => ToolRunContext["notify"];
  /** Ends what lives only as long as the request (until_request_complete notifications); never throws. */
  endRequestScope: (run: RunState) => void;
  /** The chat's documents for this turn's question (server/documents/turn-retrieval.ts); empty without documents. */
  passages: (sessionId: string, question: string, agent: ResolvedAgent, signal: AbortSignal) => Promise<Retrieval>;
}

export interface RunState {
  readonly request_id: string;
  readonly session_id: string;
  readonly stream: boolean;
  readonly request_options: Record<string, unknown> | undefined;
  /** The session's model override (PATCH /sessions/{id}); undefined: the agent's model. */
  readonly model: string | undefined;
  readonly signal: AbortSignal;
  /** The live session: the version the latest checkpoint carried (the coordinator keeps it current). */
  live: Session;
}

/** A fatal condition of the run itself (not of the provider), shown verbatim as `error.detail`. */
class RunFailure extends Error {}

/**
 * Runs the request to its end. The last two steps always run, in this order, even when publishing the ending
 * (`error` / `request_cancelled`) throws: the request-scoped notifications end, then `request_completed` is
 * published (docs/runner.md R13). A publish failure is rethrown afterwards for the caller to log.
 */
export async function runRequest(deps: RunDeps, run: RunState, out: RunEvents): Promise<void> {
  try {
    try {
      await loop(deps, run, out);
      if (run.signal.aborted) out.cancelled(stopReasonOf(run.signal));
    } catch (error) {
      if (run.signal.aborted) out.cancelled(stopReasonOf(run.signal));
      else out.error(describe(error, deps.log));
    }
  } finally {
    try {
      deps.endRequestScope(run);
    } catch (error) {
      // endRequestScope promises not to throw; a broken one must not cost the request its request_completed.
      deps.log.warn({ err: error, request_id: run.request_id }, "ending the request scope failed");
    }
    out.completed();
  }
}

async function loop(deps: RunDeps, run: RunState, out: RunEvents): Promise<void> {
  const tools = await deps.tools();
  // Retrieved once per request, from its question: every phase of the tool loop sees the same numbered passages.
  const question = [...run.live.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  const retrieval = await deps.passages(run.session_id, question, deps.agent, run.signal);
  const passages = retrieval.passages;
  // Why retrieval was BM25 only, said once: on the turn's first reply.
  let notice = retrieval.notice;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const definitions = tools.length > 0 ? ToolRegistry.definitions(tools) : undefined;
  let callsSoFar = 0;
  for (let rounds = 0; ; rounds++) {
    if (run.signal.aborted) return;
    const reply = await phase(deps, run, out, definitions, passages, notice);
    notice = undefined;
    const calls = toolCallsOf(reply);
    if (calls.length === 0) return;
    out.toolCalls(calls);
    if (rounds >= deps.maxToolIterations) {
      // The reply's calls are answered (not run) so the stored conversation stays valid for a later request.
      persist(
        deps,
        run,
        calls.map((call) => skippedResult(call, deps.maxToolIterations)),
        (m) => out.toolResults(m),
      );
      throw new RunFailure(
        `the tool loop stopped after ${deps.maxToolIterations} rounds (runner.max_tool_iterations); the model kept asking for tools`,
      );
    }
    const results = await runToolRound({
      calls,
      tools: byName,
      events: out,
      stream: run.stream,
      signal: run.signal,
      notify: deps.notify,
      firstCallIndex: callsSoFar,
    });
    callsSoFar += calls.length;
    persist(deps, run, results, (m) => out.toolResults(m));
  }
}

/** One completion; its reply (or what was streamed before it failed) is persisted with `final`. */
async function phase(
  deps: RunDeps,
  run: RunState,
  out: RunEvents,
  tools: ReturnType<typeof ToolRegistry.definitions> | undefined,
  passages: readonly Passage[],
  notice: string | undefined,
): Promise<Message> {
  const buffer = new PhaseBuffer();
  const request = {
    messages: withToolImages(
      history(deps.agent, run.live, passages),
      deps.agent.settings.allow_image_attachment_base64,
    ),
    ...(tools ? { tools } : {}),
    stream: run.stream,
    ...(run.request_options ? { request_options: run.request_options } : {}),
    ...(run.model ? { model: run.model } : {}),
    session_id: run.session_id,
    signal: run.signal,
  };
  let done;
  try {
    done = await streamPhase({ provider: deps.provider, request, events: out, log: deps.log }, buffer);
  } catch (error) {
    const partial = buffer.interrupted(run.signal.aborted ? stopReasonOf(run.signal) : "error");
    if (partial) persist(deps, run, [partial], (m) => out.final(m));
    throw error;
  }
  const citations = passages.length > 0 ? citationsOf(done.message.content, passages) : [];
  const metadata =
    citations.length > 0 || notice
      ? {
          ...done.message.metadata,
          ...(citations.length > 0 ? { citations } : {}),
          ...(notice ? { retrieval_notice: notice } : {}),
        }
      : done.message.metadata;
  const reply: Message = { role: "assistant", content: done.message.content, metadata };
  persist(deps, run, [reply], (m) => out.final(m));
  return reply;
}

/**
 * Appends messages to the session's head with their event, in one transaction with the checkpoint marker and
 * the cursor move (SessionService.change), then signals the internal checkpoint with the saved version.
 */
function persist(
  deps: RunDeps,
  run: RunState,
  messages: Message[],
  event: (messages: Message[]) => PublishInput,
): void {
  const saved = deps.sessions.change(
    run.session_id,
    (current) => {
      // Replies of a turn that has versions carry its version (server/sessions/turn-versions.ts).
      const stamped = stampAppended(current.messages, messages);
      return {
        next: { ...current, messages: [...current.messages, ...stamped] },
        events: () => [event(stamped)],
        result: (s) => s,
      };
    },
    { requestId: run.request_id },
  );
  deps.checkpoints.emit(run.session_id, run.request_id, saved);
}

/**
 * What the provider is sent: the agent's system prompt and the chat's document passages (neither stored), and the
 * session's messages.
 */
function history(agent: ResolvedAgent, session: Session, passages: readonly Passage[]): Message[] {
  const system: Message[] = agent.system_prompt ? [{ role: "system", content: agent.system_prompt }] : [];
  if (passages.length > 0) system.push(passagesMessage(passages));
  return [...system, ...session.messages];
}

function toolCallsOf(reply: Message): ToolCall[] {
  const calls = reply.metadata?.tool_calls;
  if (!Array.isArray(calls)) return [];
  // The adapter wrote these (docs/provider.md); ids are always present in its output.
  return calls as ToolCall[];
}

function skippedResult(call: ToolCall, limit: number): Message {
  return {
    role: "tool",
    content: `The tool call was not run: the request reached its limit of ${limit} tool rounds.`,
    metadata: { tool_call_id: call.id, tool_name: call.function.name, skipped: true },
  };
}

function describe(error: unknown, log: FastifyBaseLogger): string {
  if (error instanceof ProviderError || error instanceof RunFailure) return error.message;
  log.error({ err: error }, "request failed unexpectedly");
  return `the request failed: ${error instanceof Error ? error.message : String(error)}`;
}
