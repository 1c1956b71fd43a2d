// Bodies of the HTTP answers behind the app-facing methods of the client library (client/api/): sessions,
// sends, attachments, agents, models, and the admin's pairing and device routes (docs/sessions.md
// "Routes", docs/runner.md "Send"). Loose objects: a newer server may add fields.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";
import {
  messageSchema,
  pagedSessionSchema,
  sessionSchema,
  sessionTitle,
  sessionViewFields,
  type Session,
} from "./messages.ts";

/** A session as GET /sessions lists it: what a list row needs, never the messages (docs/client.md). */
export const sessionSummarySchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    title: z.string(),
    agent_id: z.string(),
    /** The session's model override, null when the agent's model applies. */
    model: z.string().nullable(),
    created_at: z.string(),
    /** Last activity: the time of the newest version. */
    updated_at: z.string(),
    message_count: z.number().int().nonnegative(),
    source_session_id: z.string().optional(),
    /** Older servers omit them (read as false). */
    archived: z.boolean().optional(),
    pinned: z.boolean().optional(),
    ...sessionViewFields(),
  }),
);
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** A session's list row: what GET /sessions answers, and what an app derives from a session event it receives. */
export function sessionSummaryOf(session: Session): SessionSummary {
  return {
    id: session.id,
    title: sessionTitle(session),
    agent_id: session.agent_id,
    model: session.model ?? null,
    created_at: session.created_at,
    updated_at: session.updated_at,
    message_count: session.messages.length,
    ...(session.source_session_id ? { source_session_id: session.source_session_id } : {}),
    archived: session.archived === true,
    pinned: session.pinned === true,
  };
}

/** GET /sessions: the list; a paged read (`limit`/`before`) adds the next page's cursor, null after the last. */
export const sessionListSchema = lazySchema(() =>
  z.looseObject({
    sessions: z.array(sessionSummarySchema),
    next_before: z.string().min(1).nullable().optional(),
  }),
);
export const sessionEnvelopeSchema = lazySchema(() => z.looseObject({ session: sessionSchema }));
/**
 * GET /sessions/{id} read in pages: the same envelope, its session checked as a page (with `messages_total` and
 * `messages_start`) in the one pass that checks the answer, not checked as a session and then again as a page.
 */
export const pagedSessionEnvelopeSchema = lazySchema(() => z.looseObject({ session: pagedSessionSchema }));
export const appendedMessageSchema = lazySchema(() =>
  z.looseObject({ session: sessionSchema, message: messageSchema }),
);

/**
 * PATCH /sessions/{id}: a title (null: back to the first user message), a model override (null: clear), archived and
 * pinned, and request options saved with the session (null: clear; an object replaces the saved one).
 */
export const sessionUpdateSchema = lazySchema(() =>
  z
    .object({
      title: z.string().trim().min(1).max(200).nullable().optional(),
      model: z.string().trim().min(1).max(200).nullable().optional(),
      archived: z.boolean().optional(),
      pinned: z.boolean().optional(),
      request_options: z.record(z.string(), z.unknown()).nullable().optional(),
    })
    .strict(),
);
export type SessionUpdate = z.infer<typeof sessionUpdateSchema>;

/** The longest client_request_id POST /sessions/{id}/send accepts. */
export const MAX_CLIENT_REQUEST_ID_LENGTH = 100;
export const clientRequestIdSchema = z.string().min(1).max(MAX_CLIENT_REQUEST_ID_LENGTH);

export const sendAcceptedSchema = lazySchema(() => z.looseObject({ request_id: z.string() }));
export const cancelAcceptedSchema = lazySchema(() =>
  z.looseObject({ request_id: z.string(), cancelling: z.boolean().optional() }),
);

/** An attachment of POST /sessions/{id}/send. */
export const sendAttachmentSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("image_url"), url: z.string() }),
    z.object({ type: z.literal("image_data"), data_url: z.string() }),
    z.object({ type: z.literal("asset"), asset_id: z.string() }),
    z.object({ type: z.literal("document"), document_id: z.string() }),
  ]),
);
export type SendAttachment = z.infer<typeof sendAttachmentSchema>;

/** reference_compatible_attachments store_attachment → 201. */
export const storedAttachmentSchema = lazySchema(() =>
  z.looseObject({
    asset_id: z.string(),
    media_type: z.string(),
    size: z.number().int().nonnegative(),
    filename: z.string().optional(),
  }),
);
export type StoredAttachment = z.infer<typeof storedAttachmentSchema>;
export const deletedAttachmentSchema = lazySchema(() =>
  z.looseObject({ deleted: z.literal(true), asset_id: z.string() }),
);

/** GET /agents: an agent as a frontend renders it (server/http/routes/providers.ts agentView). */
export const agentViewSchema = lazySchema(() =>
  z.looseObject({
    agent_id: z.string(),
    provider_id: z.string(),
    provider: z.string(),
    model: z.string(),
    base_url: z.string(),
    endpoint: z.string().nullable(),
    endpoint_options: z.record(z.string(), z.unknown()),
    /** Selects an app shows for request_options: near the composer when rich_ui, in a settings panel otherwise. */
    request_options_ui: z.record(
      z.string(),
      z.looseObject({ type: z.string(), options: z.array(z.string()), rich_ui: z.boolean().optional() }),
    ),
    show_usage: z.boolean(),
    show_estimated_cached_tokens: z.boolean(),
    allow_image_attachment_base64: z.boolean(),
    allow_image_attachment_url: z.boolean(),
  }),
);
export type AgentView = z.infer<typeof agentViewSchema>;
export const agentListSchema = lazySchema(() => z.looseObject({ agents: z.array(agentViewSchema) }));

/** GET /providers/{id}/models: discovered models; `error` when discovery failed (a custom id is still fine). */
export const modelListSchema = lazySchema(() =>
  z.looseObject({
    provider_id: z.string(),
    base_url: z.string(),
    model: z.string(),
    models: z.array(z.looseObject({ id: z.string(), owned_by: z.string().optional() })),
    custom_model_allowed: z.boolean(),
    error: z.string().optional(),
  }),
);
export type ModelList = z.infer<typeof modelListSchema>;

/** POST /pairing (admin) → 201. */
export const pairingCreatedSchema = lazySchema(() =>
  z.looseObject({
    code: z.string(),
    expires_at: z.string(),
    server_id: z.string(),
    bridge_url: z.string(),
    server_url: z.string(),
    pair_url: z.string(),
    /** The server's X25519 public key (also pair_url's `key`) and its fingerprint; older servers omit them. */
    server_key: z.string().optional(),
    fingerprint: z.string().optional(),
    /** The person the code's device will belong to (docs/people.md); older servers omit it. */
    person_id: z.string().optional(),
  }),
);
export type PairingCreated = z.infer<typeof pairingCreatedSchema>;

export const deviceRecordSchema = lazySchema(() =>
  z.looseObject({
    device_id: z.string(),
    name: z.string(),
    created_at: z.string(),
    last_seen_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    /** A socket open on the bridge now; null: unknown (the server has no bridge link). Older servers omit it. */
    connected: z.boolean().nullable().optional(),
    /** `e2e`: gets sealed events (paired with a key); `plain`: gets them in clear. Older servers omit it. */
    mode: z.enum(["e2e", "plain"]).optional(),
    /** The person the device belongs to (docs/people.md). Older servers omit it. */
    person_id: z.string().optional(),
  }),
);
export type DeviceRecord = z.infer<typeof deviceRecordSchema>;
export const deviceListSchema = lazySchema(() => z.looseObject({ devices: z.array(deviceRecordSchema) }));
export const deviceRevokedSchema = lazySchema(() => z.looseObject({ device: deviceRecordSchema }));
