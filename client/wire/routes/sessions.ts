// Session and message routes (docs/sessions.md "Routes", docs/events.md "Sessions").
import { z } from "zod";
import {
  appendedMessageSchema,
  clientRequestIdSchema,
  sessionEnvelopeSchema,
  sessionListSchema,
  sessionUpdateSchema,
} from "../api.ts";
import { messagesSnapshotSchema } from "../http.ts";
import { metadataSchema, roleSchema } from "../messages.ts";
import { messageParams, sessionParams } from "./params.ts";
import { integerParam } from "./query.ts";
import { defineRoute, noContent } from "./route.ts";

export const listSessionsRoute = defineRoute("GET", "/sessions", () => ({
  query: z
    .object({
      archived: z.enum(["only", "include"]).optional(),
      /** A page of at most this many (docs/sessions.md "History in pages"); absent with `before`: the whole list. */
      limit: integerParam("limit", 1, 200).optional(),
      /** An earlier page's `next_before`, opaque. */
      before: z.string().min(1).max(512).optional(),
    })
    .strict(),
  /** With `limit` or `before`: `{sessions, next_before}` (null after the last page). */
  answer: sessionListSchema,
}));

export const createSessionRoute = defineRoute("POST", "/sessions", () => ({
  body: z
    .object({
      agent_id: z.string().min(1).optional(),
      // A repeat with the same id answers the chat the first one created (docs/runner.md "Idempotent sends").
      client_session_id: clientRequestIdSchema.optional(),
    })
    .strict()
    .default({}),
  answer: sessionEnvelopeSchema,
  status: 201,
  errors: ["agent_not_found"],
}));

export const getSessionRoute = defineRoute("GET", "/sessions/:session_id", () => ({
  params: sessionParams,
  // Not strict: this route ignored any query before paging, and answers unknown ones as it did.
  query: z.object({
    messages_limit: integerParam("messages_limit", 1, 1000).optional(),
    messages_before: integerParam("messages_before", 0, 1_000_000_000).optional(),
  }),
  answer: sessionEnvelopeSchema,
  errors: ["session_not_found"],
}));

export const updateSessionRoute = defineRoute("PATCH", "/sessions/:session_id", () => ({
  params: sessionParams,
  body: sessionUpdateSchema,
  answer: sessionEnvelopeSchema,
  errors: ["session_not_found"],
}));

export const deleteSessionRoute = defineRoute("DELETE", "/sessions/:session_id", () => ({
  params: sessionParams,
  body: z.object({}).strict().optional(),
  answer: noContent,
  status: 204,
  errors: ["session_not_found"],
}));

export const forkSessionRoute = defineRoute("POST", "/sessions/:session_id/fork", () => ({
  params: sessionParams,
  body: z.object({}).strict().default({}),
  answer: sessionEnvelopeSchema,
  status: 201,
  errors: ["session_not_found"],
}));

export const loadMessagesRoute = defineRoute("GET", "/sessions/:session_id/messages", () => ({
  params: sessionParams,
  // Not strict: this route ignored any query before `limit`, and answers unknown ones as it did.
  query: z.object({
    /** Only the last `limit` shown messages, with `messages_total` and `messages_start` (docs/sessions.md P10). */
    limit: integerParam("limit", 1, 1000).optional(),
  }),
  answer: messagesSnapshotSchema,
  errors: ["session_not_found"],
}));

export const appendMessageRoute = defineRoute("POST", "/sessions/:session_id/messages", () => ({
  params: sessionParams,
  body: z.object({ role: roleSchema, content: z.string(), metadata: metadataSchema.optional() }).strict(),
  answer: appendedMessageSchema,
  status: 201,
  errors: ["session_not_found"],
}));

export const modifyMessageRoute = defineRoute("PATCH", "/sessions/:session_id/messages/:index", () => ({
  params: messageParams,
  body: z.object({ content: z.string() }).strict(),
  answer: sessionEnvelopeSchema,
  errors: ["session_not_found", "message_not_found"],
}));

export const deleteMessagesRoute = defineRoute("DELETE", "/sessions/:session_id/messages", () => ({
  params: sessionParams,
  body: z
    .object({ indices: z.array(z.number().int().nonnegative()).min(1) })
    .strict()
    .refine((b) => new Set(b.indices).size === b.indices.length, {
      message: "indices must not repeat",
      path: ["indices"],
    }),
  answer: sessionEnvelopeSchema,
  errors: ["session_not_found", "index_out_of_range"],
}));
