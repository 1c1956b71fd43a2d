// Regenerate, edit-and-resend and the version switch (docs/sessions.md "Versions"): regenerate and resend answer 202
// {request_id} (409 while a request runs); the version switch answers the session, publishing session_updated.
import { z } from "zod";
import { clientRequestIdSchema, sendAcceptedSchema, sessionEnvelopeSchema } from "../api.ts";
import { messageParams, sessionParams } from "./params.ts";
import { defineRoute } from "./route.ts";

export const regenerateRoute = defineRoute("POST", "/sessions/:session_id/regenerate", () => ({
  params: sessionParams,
  body: z
    .object({
      client_request_id: clientRequestIdSchema.optional(),
      /** A model for this one answer; the session's model stays. */
      model: z.string().trim().min(1).max(200).optional(),
      request_options: z.record(z.string(), z.unknown()).optional(),
      stream: z.boolean().default(true),
    })
    .strict()
    .default({ stream: true }),
  answer: sendAcceptedSchema,
  status: 202,
  errors: ["session_not_found", "agent_not_found", "request_in_progress", "message_not_found"],
}));

export const resendMessageRoute = defineRoute("POST", "/sessions/:session_id/messages/:index/resend", () => ({
  params: messageParams,
  body: z
    .object({
      content: z.string(),
      client_request_id: clientRequestIdSchema.optional(),
      stream: z.boolean().default(true),
    })
    .strict(),
  answer: sendAcceptedSchema,
  status: 202,
  errors: ["session_not_found", "agent_not_found", "request_in_progress", "message_not_found"],
}));

export const switchVersionRoute = defineRoute("POST", "/sessions/:session_id/messages/:index/version", () => ({
  params: messageParams,
  body: z.object({ version: z.number().int().positive() }).strict(),
  answer: sessionEnvelopeSchema,
  errors: ["session_not_found", "message_not_found", "request_in_progress"],
}));
