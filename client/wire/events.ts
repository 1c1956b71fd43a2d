// One zod schema per event type of docs/events.md "Event types and checkpoints". The server publishes these, the bridge relays them, the
// client validates them; the TypeScript types are inferred here and nowhere else. Every schema is loose: a
// newer server may add fields, and consumers ignore what they do not know.
import { z } from "zod";
import { byTypeName, lazySchema, onFirstUse } from "./built-on-first-use.ts";
import { eventIdSchema } from "./event-id.ts";
import { messageSchema, metadataSchema, roleSchema, sessionSchema } from "./messages.ts";

/** Fields every stored event carries. `timestamp` is the commit time (ISO 8601), an addition of ours. */
const common = onFirstUse(() => ({
  event_id: eventIdSchema,
  session_id: z.string().optional(),
  request_id: z.string().optional(),
  timestamp: z.string().optional(),
}));

function eventType<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.looseObject({ ...common(), type: z.literal(type), ...shape });
}

const inRequest = onFirstUse(() => ({ session_id: z.string(), request_id: z.string() }));
const inSession = onFirstUse(() => ({ session_id: z.string() }));

// Request lifecycle
export const requestStartedEvent = lazySchema(() =>
  eventType("request_started", { ...inRequest(), stream: z.boolean() }),
);
/** `reason` (issue 20): "user" for the person's Stop, "shutdown" for a server shutdown; absent from older servers. */
export const requestCancelledEvent = lazySchema(() =>
  eventType("request_cancelled", {
    ...inRequest(),
    reason: z.enum(["user", "shutdown"]).optional(),
  }),
);
export const requestCompletedEvent = lazySchema(() => eventType("request_completed", inRequest()));
/** `reason` "crash": the request was found unfinished when the server started again after a crash. */
export const errorEvent = lazySchema(() =>
  eventType("error", {
    ...inRequest(),
    detail: z.string(),
    reason: z.literal("crash").optional(),
  }),
);

// Assistant streaming
export const assistantMessageEvent = lazySchema(() =>
  eventType("assistant_message", { ...inRequest(), phase: z.enum(["start", "end"]) }),
);
export const partialEvent = lazySchema(() =>
  eventType("partial", {
    ...inRequest(),
    message: z.looseObject({ role: z.literal("assistant"), content: z.string(), metadata: metadataSchema.optional() }),
  }),
);
export const finalEvent = lazySchema(() => eventType("final", { ...inRequest(), messages: z.array(messageSchema) }));

// Tool calling
export const toolCallSchema = lazySchema(() =>
  z.looseObject({
    id: z.string().optional(),
    tool_call_id: z.string().optional(),
    type: z.string().optional(),
    function: z.looseObject({ name: z.string(), arguments: z.string() }),
  }),
);
export type ToolCall = z.infer<typeof toolCallSchema>;
export const toolCallsEvent = lazySchema(() =>
  eventType("tool_calls", { ...inRequest(), tool_calls: z.array(toolCallSchema) }),
);
export const toolPartialEvent = lazySchema(() =>
  eventType("tool_partial", {
    ...inRequest(),
    tool_call_id: z.string(),
    phase: z.enum(["start", "stream", "end"]),
    payload: z.record(z.string(), z.unknown()),
  }),
);
export const toolResultsEvent = lazySchema(() =>
  eventType("tool_results", { ...inRequest(), messages: z.array(messageSchema) }),
);
/**
 * A tool call waits for a person's approval (`waiting`), or that wait ended. The session interaction
 * `notification_id` is the record to answer (POST /sessions/{id}/notifications/{notification_id}/respond).
 */
export const toolApprovalEvent = lazySchema(() =>
  eventType("tool_approval", {
    ...inRequest(),
    tool_call_id: z.string(),
    tool_name: z.string(),
    notification_id: z.string(),
    state: z.enum(["waiting", "approved", "denied", "expired", "cancelled"]),
  }),
);

// Checkpoint marker (the internal session_checkpoint never reaches the wire)
export const checkpointEvent = lazySchema(() =>
  eventType("checkpoint", {
    ...inSession(),
    request_id: z.string().optional(),
    timestamp: z.string(),
  }),
);

// Session and message lifecycle
export const sessionCreatedEvent = lazySchema(() =>
  eventType("session_created", {
    ...inSession(),
    agent_id: z.string(),
    source_session_id: z.string().optional(),
    session: sessionSchema,
  }),
);
export const messageAppendedEvent = lazySchema(() =>
  eventType("message_appended", {
    ...inSession(),
    role: roleSchema,
    content: z.string(),
    metadata: metadataSchema,
    message: messageSchema,
    session: sessionSchema,
  }),
);
export const messageModifiedEvent = lazySchema(() =>
  eventType("message_modified", {
    ...inSession(),
    index: z.number().int().nonnegative(),
    content: z.string(),
    session: sessionSchema,
  }),
);
export const messagesDeletedEvent = lazySchema(() =>
  eventType("messages_deleted", {
    ...inSession(),
    indices: z.array(z.number().int().nonnegative()),
    session: sessionSchema,
  }),
);

/** PATCH /sessions/{id} renamed the session or changed its model override (`session` is the saved version). */
export const sessionUpdatedEvent = lazySchema(() =>
  eventType("session_updated", { ...inSession(), session: sessionSchema }),
);

/**
 * DELETE /sessions/{id}: the session and its content are gone (its earlier events are tombstones now). Whatever keeps
 * per-session data (search, replay, push, app caches) drops it on this event.
 */
export const sessionDeletedEvent = lazySchema(() => eventType("session_deleted", inSession()));

/** A document of the library as it is read (docs/documents.md "Reading"): at most once a second and per 5%, and at the end. */
export const documentRecordSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    media_type: z.string(),
    bytes: z.number().int().nonnegative(),
    pages: z.number().int().nonnegative(),
    status: z.enum(["reading", "ready", "failed"]),
    error: z.object({ code: z.string(), message: z.string(), reason: z.string().optional() }).optional(),
    created_at: z.string(),
  }),
);
export type DocumentRecord = z.infer<typeof documentRecordSchema>;
export const documentUpdatedEvent = lazySchema(() =>
  eventType("document_updated", {
    document: documentRecordSchema,
    progress: z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() }).optional(),
  }),
);
/**
 * A person gained access to a chat (a share, a transfer to them: docs/people.md) or lost it (unshare, transfer, their
 * removal, deletion). Sent only to that person; on `session_access_revoked` apps drop the chat as on session_deleted.
 */
export const sessionAccessGrantedEvent = lazySchema(() =>
  eventType("session_access_granted", { ...inSession(), session: sessionSchema }),
);
export const sessionAccessRevokedEvent = lazySchema(() => eventType("session_access_revoked", inSession()));

export const coreEventSchemaByType = byTypeName({
  request_started: requestStartedEvent,
  request_cancelled: requestCancelledEvent,
  request_completed: requestCompletedEvent,
  error: errorEvent,
  assistant_message: assistantMessageEvent,
  partial: partialEvent,
  final: finalEvent,
  tool_calls: toolCallsEvent,
  tool_partial: toolPartialEvent,
  tool_results: toolResultsEvent,
  tool_approval: toolApprovalEvent,
  checkpoint: checkpointEvent,
  session_created: sessionCreatedEvent,
  message_appended: messageAppendedEvent,
  message_modified: messageModifiedEvent,
  messages_deleted: messagesDeletedEvent,
  session_updated: sessionUpdatedEvent,
  session_deleted: sessionDeletedEvent,
  document_updated: documentUpdatedEvent,
});

type CoreEventOption = (typeof coreEventSchemaByType)[keyof typeof coreEventSchemaByType];
const coreEventSchemas = Object.values(coreEventSchemaByType) as [CoreEventOption, ...CoreEventOption[]];

export const coreEventSchema = lazySchema(() => z.discriminatedUnion("type", coreEventSchemas));
export type CoreEvent = z.infer<typeof coreEventSchema>;
export type CoreEventType = CoreEvent["type"];
export type EventOf<T extends CoreEventType> = Extract<CoreEvent, { type: T }>;

/** What a producer hands to the store: an event without the fields the store assigns. */
export type EventInput<E extends { event_id: string } = CoreEvent> = E extends unknown
  ? Omit<E, "event_id" | "timestamp">
  : never;

/** Any stored event, known type or not: what the log and the relays carry. */
export const anyEventSchema = lazySchema(() => z.looseObject({ ...common(), type: z.string().min(1) }));
export type AnyEvent = z.infer<typeof anyEventSchema>;
