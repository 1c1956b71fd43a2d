// A session's transcript as the chat screen shows it: the stored messages plus what is in flight (the streamed
// reply, its reasoning, the running tools) and the request notes that are not messages (errors, cancels).
// Pure: (state, event) -> state, so the order rules are in one place (docs/runner.md "States and transitions").
import { isEvent, type AnyEvent, type Message } from "../../../client/index.ts";

export interface LiveReply {
  request_id: string;
  content: string;
  reasoning: string;
  /** Tool names of the round in progress (between tool_calls and tool_results). */
  tools: string[];
  /** "retrying in n s" after a pre-stream retry marker. */
  retry?: { attempt: number; delay_ms: number };
}

/**
 * Why a request ended without its reply: `user` (someone pressed Stop), `shutdown` (the server stopped), `crash`
 * (found unfinished when the server started again), or unknown (an older server gives no reason).
 */
export type EndReason = "user" | "shutdown" | "crash" | "unknown";

export interface RequestNote {
  request_id: string;
  kind: "error" | "cancelled";
  detail: string;
  reason: EndReason;
  /** Shown after this many messages of the whole chat (where the request ended). */
  position: number;
}

export interface Transcript {
  /** The loaded messages: the chat's from index `start` to its end (a long chat opens at its end, older pages later). */
  messages: Message[];
  /** The chat's index of messages[0]; 0 when the chat's start is loaded. */
  start: number;
  live?: LiveReply;
  notes: RequestNote[];
}

export function emptyTranscript(messages: Message[] = [], start = 0): Transcript {
  return { messages, start, notes: [] };
}

/** The chat's length as far as the transcript knows it (its loaded end). */
export const endOf = (state: Transcript): number => state.start + state.messages.length;

/** An older page put in front: `messages` are the chat's from `start` up to the transcript's own start. */
export function prependPage(state: Transcript, messages: Message[], start: number): Transcript {
  if (start + messages.length !== state.start) return state;
  return { ...state, messages: [...messages, ...state.messages], start };
}

export function applyEvent(state: Transcript, event: AnyEvent): Transcript {
  if (isEvent(event, "message_appended")) {
    // A reply kept unfinished (stopped, shutdown, crash) arrives as a message: it replaces the live text it holds.
    const keptUnfinished =
      event.message.role === "assistant" &&
      event.message.metadata?.interrupted !== undefined &&
      state.live !== undefined;
    const live = keptUnfinished ? { ...state.live!, content: "", reasoning: "" } : state.live;
    return { ...state, messages: [...state.messages, event.message], live };
  }
  if (isEvent(event, "message_modified")) {
    // The event's index is the chat's; a message before the loaded ones is read fresh when its page loads.
    const at = event.index - state.start;
    const messages = state.messages.map((message, index) =>
      index === at ? { ...message, content: event.content } : message,
    );
    return { ...state, messages };
  }
  if (isEvent(event, "session_updated")) {
    // The session's messages are its shown path: a regenerate, resend or version switch replaces them (with their
    // version marks), a rename leaves them as they were. Notes past the new end move to it.
    const messages = event.session.messages;
    return {
      ...state,
      messages,
      start: 0,
      notes: state.notes.map((note) =>
        note.position > messages.length ? { ...note, position: messages.length } : note,
      ),
    };
  }
  if (isEvent(event, "messages_deleted")) {
    const gone = new Set(event.indices);
    const goneBefore = event.indices.filter((index) => index < state.start).length;
    const messages = state.messages.filter((_, index) => !gone.has(state.start + index));
    return { ...state, messages, start: state.start - goneBefore };
  }
  // Every event below belongs to a request (their schemas require request_id; the narrowed type does not say so).
  const request_id = event.request_id;
  if (request_id === undefined) return state;
  if (isEvent(event, "request_started"))
    return { ...state, live: { request_id: request_id, content: "", reasoning: "", tools: [] } };
  if (isEvent(event, "assistant_message") && event.phase === "start")
    return withLive(state, request_id, (live) => ({ ...live, content: "", reasoning: "", retry: undefined }));
  if (isEvent(event, "partial"))
    return withLive(state, request_id, (live) => applyPartial(live, event.message.content, event.message.metadata));
  if (isEvent(event, "final") || isEvent(event, "tool_results")) {
    const next = { ...state, messages: [...state.messages, ...event.messages] };
    return withLive(next, request_id, (live) => ({ ...live, content: "", reasoning: "", tools: [] }));
  }
  if (isEvent(event, "tool_calls"))
    return withLive(state, request_id, (live) => ({
      ...live,
      tools: event.tool_calls.map((call) => call.function.name),
    }));
  if (isEvent(event, "error"))
    return addNote(state, {
      request_id,
      kind: "error",
      detail: event.detail,
      reason: reasonOf(event),
      position: endOf(state),
    });
  if (isEvent(event, "request_cancelled"))
    return addNote(state, {
      request_id,
      kind: "cancelled",
      detail: "",
      reason: reasonOf(event),
      position: endOf(state),
    });
  if (isEvent(event, "request_completed"))
    return state.live?.request_id === request_id ? { ...state, live: undefined } : state;
  return state;
}

function reasonOf(event: AnyEvent): EndReason {
  const reason = (event as { reason?: unknown }).reason;
  return reason === "user" || reason === "shutdown" || reason === "crash" ? reason : "unknown";
}

function applyPartial(live: LiveReply, content: string, metadata: Record<string, unknown> | undefined): LiveReply {
  // docs/runner.md: at a recovery marker, drop what the phase showed; the partials after it replay the reply.
  if (metadata && "recovery" in metadata) return { ...live, content: "", reasoning: "" };
  const retry = metadata?.retry as { attempt?: unknown; delay_ms?: unknown } | undefined;
  if (retry && typeof retry.attempt === "number" && typeof retry.delay_ms === "number")
    return { ...live, retry: { attempt: retry.attempt, delay_ms: retry.delay_ms } };
  const reasoning = reasoningOf(metadata);
  return { ...live, content: live.content + content, reasoning: live.reasoning + reasoning, retry: undefined };
}

/** Reasoning text of a message or partial: providers name the field `reasoning` or `reasoning_content`. */
export function reasoningOf(metadata: Record<string, unknown> | undefined): string {
  const value = metadata?.reasoning ?? metadata?.reasoning_content;
  return typeof value === "string" ? value : "";
}

function withLive(state: Transcript, request_id: string, change: (live: LiveReply) => LiveReply): Transcript {
  const live =
    state.live?.request_id === request_id ? state.live : { request_id, content: "", reasoning: "", tools: [] };
  return { ...state, live: change(live) };
}

function addNote(state: Transcript, note: RequestNote): Transcript {
  return { ...state, notes: [...state.notes, note] };
}
