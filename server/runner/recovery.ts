// Requests a crash cut off (kill, OOM, power loss): they have `request_started` and never got
// `request_completed`. The `active_requests` table knows them: its row is written in the transaction of
// `request_started` and deleted in the transaction of `request_completed`, so a row found at start names a
// request no process is running any more. Recovery ends each one the way a failure would (docs/runner.md
// "Crash recovery"), keeping the text the cut phase had shown, in one transaction per request, so a crash during
// recovery leaves the row for the next start and never publishes an ending twice.
import { partialEvent, type AnyEvent, type Message } from "../../client/wire/index.ts";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../db/database.ts";
import type { Transactor } from "../db/transactor.ts";
import { DomainError } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import type { NotificationService } from "../notifications/notification-service.ts";
import { expireForCompletedRequest } from "../notifications/retention.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { RunEvents } from "./events.ts";
import { interruptedReply } from "./interruption.ts";

export const SERVER_STOPPED_DETAIL = "The server restarted before this reply finished.";
const UNFINISHED_TOOL_CALL = "The tool call did not finish: the server stopped while it was running.";

export class ActiveRequests {
  private readonly insert;
  private readonly remove;
  private readonly all;

  constructor(db: Db) {
    this.insert = db.prepare<[string, string, number]>(
      "INSERT INTO active_requests (request_id, session_id, started_at) VALUES (?, ?, ?)",
    );
    this.remove = db.prepare<[string]>("DELETE FROM active_requests WHERE request_id = ?");
    this.all = db.prepare<[], { request_id: string; session_id: string }>(
      "SELECT request_id, session_id FROM active_requests ORDER BY started_at, request_id",
    );
  }

  /** Call inside the transaction that publishes request_started. */
  add(requestId: string, sessionId: string, startedAt: number): void {
    this.insert.run(requestId, sessionId, startedAt);
  }

  /** Call inside the transaction that publishes request_completed. */
  delete(requestId: string): void {
    this.remove.run(requestId);
  }

  list(): Array<{ request_id: string; session_id: string }> {
    return this.all.all();
  }
}

interface RecoveryContext {
  events: EventStore;
  sessions: SessionService;
  transactor: Transactor;
  notifications: NotificationService;
  log: Pick<FastifyBaseLogger, "warn" | "error">;
}

/**
 * Ends every request a previous process left unfinished. Runs once when the runner is built (createRuntime),
 * before the server accepts requests. Returns the request ids it ended.
 */
export function recoverInterruptedRequests(ctx: RecoveryContext, active: ActiveRequests): string[] {
  const ended: string[] = [];
  for (const row of active.list()) {
    try {
      ctx.transactor.run(() => endInterrupted(ctx, active, row.request_id, row.session_id));
      ended.push(row.request_id);
    } catch (error) {
      // The row stays: the next start tries again. Nothing of this attempt was committed.
      ctx.log.error(
        { err: error, request_id: row.request_id },
        "could not end a request the previous process left unfinished",
      );
    }
  }
  if (ended.length > 0)
    ctx.log.warn({ request_ids: ended }, `ended ${ended.length} request(s) cut off when the server stopped`);
  return ended;
}

function endInterrupted(ctx: RecoveryContext, active: ActiveRequests, requestId: string, sessionId: string): void {
  const out = new RunEvents(ctx.events, sessionId, requestId);
  const seen = ctx.events.list({
    sinceId: ctx.events.oldestValidCursor,
    requestId,
    limit: Number.MAX_SAFE_INTEGER,
    maxBytes: Number.POSITIVE_INFINITY,
  }).events;
  const open = openStreams(seen);
  if (open.assistantMessage) out.assistantMessage("end");
  // A phase cut off mid-stream: its reply was never saved (no `final`). What its partials showed is kept, as a
  // user's Stop keeps it, marked interrupted by the crash.
  const shown = unsavedReply(seen);
  if (shown) keepShownReply(ctx, out, sessionId, shown);
  answerUnfinishedToolCalls(ctx, out, requestId, sessionId, open.toolPartials);
  out.error(SERVER_STOPPED_DETAIL, "crash");
  expireForCompletedRequest(ctx, requestId, sessionId);
  out.completed();
  active.delete(requestId);
}

/**
 * The text the last phase streamed that no `final` saved: the partials after its `assistant_message` start (a
 * recovery marker starts the text over, as the live phase's buffer does). Undefined when the phase was saved.
 */
function unsavedReply(events: AnyEvent[]): Message | undefined {
  let content = "";
  let reasoning: Record<string, string> = {};
  let unsaved = false;
  for (const event of events) {
    if (event.type === "assistant_message" && event.phase === "start") [content, reasoning, unsaved] = ["", {}, true];
    else if (event.type === "final") unsaved = false;
    else if (event.type === "partial" && unsaved) {
      const partial = partialEvent.safeParse(event);
      if (!partial.success) continue;
      const metadata = partial.data.message.metadata ?? {};
      if (isRecord(metadata.recovery) && metadata.recovery.restart === true) [content, reasoning] = ["", {}];
      content += partial.data.message.content;
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value === "string" && key !== "retry" && key !== "recovery")
          reasoning[key] = (reasoning[key] ?? "") + value;
      }
    }
  }
  return unsaved ? interruptedReply(content, reasoning, "crash") : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Appends the shown reply with its `final`, in the session's transaction, as the live run's phase would have. */
function keepShownReply(ctx: RecoveryContext, out: RunEvents, sessionId: string, reply: Message): void {
  try {
    ctx.sessions.change(
      sessionId,
      (current) => ({
        next: { ...current, messages: [...current.messages, reply] },
        events: () => [out.final([reply])],
        result: () => undefined,
      }),
      {
        requestId: out.requestId,
      },
    );
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") return; // the session is gone: nothing to keep
    throw error;
  }
}

/** What the request's events left open: an `assistant_message` without its end, tool_partial streams. */
function openStreams(events: AnyEvent[]): { assistantMessage: boolean; toolPartials: Set<string> } {
  let assistantMessage = false;
  const toolPartials = new Set<string>();
  for (const event of events) {
    if (event.type === "assistant_message") assistantMessage = event.phase === "start";
    if (event.type === "tool_partial" && typeof event.tool_call_id === "string") {
      if (event.phase === "end") toolPartials.delete(event.tool_call_id);
      else toolPartials.add(event.tool_call_id);
    }
  }
  return { assistantMessage, toolPartials };
}

/**
 * A crash during a tool round leaves the saved assistant message's tool calls without results; the next request
 * would send a history the backend refuses. Each such call is answered (interrupted), with `tool_partial` end
 * for the calls that had streamed parts, then `tool_results` and `checkpoint`, as a cancel does.
 */
function answerUnfinishedToolCalls(
  ctx: RecoveryContext,
  out: RunEvents,
  requestId: string,
  sessionId: string,
  openPartials: Set<string>,
): void {
  let messages: Message[];
  try {
    messages = ctx.sessions.get(sessionId).messages;
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") return; // the session is gone: nothing to repair
    throw error;
  }
  const start = messages.findIndex((m) => m.role === "user" && m.metadata?.request_id === requestId);
  if (start < 0) return;
  const answered = new Set(
    messages
      .slice(start)
      .flatMap((m) =>
        m.role === "tool" && typeof m.metadata?.tool_call_id === "string" ? [m.metadata.tool_call_id] : [],
      ),
  );
  const unanswered: Message[] = [];
  for (const message of messages.slice(start)) {
    if (message.role !== "assistant" || !Array.isArray(message.metadata?.tool_calls)) continue;
    for (const call of message.metadata.tool_calls as Array<{ id?: unknown; function?: { name?: unknown } }>) {
      if (typeof call.id !== "string" || answered.has(call.id)) continue;
      unanswered.push({
        role: "tool",
        content: UNFINISHED_TOOL_CALL,
        metadata: {
          tool_call_id: call.id,
          tool_name: String(call.function?.name ?? ""),
          interrupted: true,
          interrupted_reason: "server_stopped",
        },
      });
    }
  }
  if (unanswered.length === 0) return;
  for (const result of unanswered) {
    const callId = result.metadata!.tool_call_id as string;
    if (openPartials.has(callId)) out.toolPartial(callId, "end", { result });
  }
  ctx.sessions.change(
    sessionId,
    (current) => ({
      next: { ...current, messages: [...current.messages, ...unanswered] },
      events: () => [out.toolResults(unanswered)],
      result: () => undefined,
    }),
    { requestId },
  );
}
