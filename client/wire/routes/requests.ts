// Send and cancel (docs/runner.md "Send", "Cancel and shutdown"): POST /sessions/{id}/send → 202 {request_id};
// POST /sessions/{id}/requests/{request_id}/cancel → 202 {request_id, cancelling}.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { cancelAcceptedSchema, clientRequestIdSchema, sendAcceptedSchema } from "../api.ts";
import { sessionParams } from "./params.ts";
import { defineRoute } from "./route.ts";

export const MAX_ATTACHMENTS = 16;

/** An attachment as the server takes it (the library's sendAttachmentSchema is the looser reading of the same). */
export const sendAttachmentInput = lazySchema(() =>
  z.discriminatedUnion("type", [
    z
      .object({ type: z.literal("image_url"), url: z.string().regex(/^https?:\/\/\S+$/i, "must be an http(s) URL") })
      .strict(),
    z
      .object({ type: z.literal("image_data"), data_url: z.string().startsWith("data:", "must be a data: URL") })
      .strict(),
    z.object({ type: z.literal("asset"), asset_id: z.string().min(1) }).strict(),
    /** A document of the sender's library, copied into the chat (docs/documents.md "Into the conversation"). */
    z.object({ type: z.literal("document"), document_id: z.string().min(1).max(100) }).strict(),
  ]),
);

export const sendRoute = defineRoute("POST", "/sessions/:session_id/send", () => ({
  params: sessionParams,
  body: z
    .object({
      content: z.string(),
      attachments: z.array(sendAttachmentInput).max(MAX_ATTACHMENTS).default([]),
      stream: z.boolean().default(true),
      request_options: z.record(z.string(), z.unknown()).optional(),
      /** Makes the send idempotent for 10 minutes (the server remembers it). */
      client_request_id: clientRequestIdSchema.optional(),
    })
    .strict()
    .refine((body) => body.content.trim() !== "" || body.attachments.length > 0, {
      message: "content must not be empty (an image-only message needs at least one attachment)",
      path: ["content"],
    }),
  answer: sendAcceptedSchema,
  status: 202,
  errors: [
    "session_not_found",
    "agent_not_found",
    "request_in_progress",
    "attachment_not_allowed",
    "media_type_mismatch",
    "attachment_too_large",
    "asset_not_found",
    "unsupported_media_type",
  ],
}));

export const cancelRoute = defineRoute("POST", "/sessions/:session_id/requests/:request_id/cancel", () => ({
  params: z.object({ session_id: z.string().min(1), request_id: z.string().min(1) }).strict(),
  body: z.object({}).strict().optional(),
  answer: cancelAcceptedSchema,
  status: 202,
  errors: ["session_not_found", "share_access_denied", "request_not_found", "request_finished"],
}));
