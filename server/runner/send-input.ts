// The body of POST /sessions/{id}/send and the checks that must pass before anything is written: attachment
// kinds the agent allows, inline images that are real images within the size limit, assets the session may
// use, request options the provider accepts. A refused send leaves no trace (docs/runner.md R9). Refusals are
// `invalid` DomainErrors: the route and the error handler decide the status.
import { z } from "zod";
import { clientRequestIdSchema } from "../../client/wire/index.ts";
import { decodeDataUrl } from "../assets/sniff.ts";
import type { AssetStore } from "../assets/store.ts";
import type { ResolvedAgent } from "../config/agents.ts";
import { invalid } from "../errors.ts";
import { ProviderError } from "../provider/index.ts";
import { mergeRequestOptions } from "../provider/request.ts";

export const MAX_ATTACHMENTS = 16;

/**
 * POST /sessions/{id}/send's body limit. Inline images travel as data URLs in the body: room for MAX_ATTACHMENTS-worth
 * is not needed, one max-size image (base64) plus text is; the decoded size is checked per attachment. An import
 * takes no longer message than this (export/limits.ts).
 */
export function sendBodyLimit(maxAssetBytes: number): number {
  return Math.max(1024 * 1024, Math.ceil(maxAssetBytes / 3) * 4 + 256 * 1024);
}

export const attachmentSchema = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("image_url"), url: z.string().regex(/^https?:\/\/\S+$/i, "must be an http(s) URL") })
    .strict(),
  z.object({ type: z.literal("image_data"), data_url: z.string().startsWith("data:", "must be a data: URL") }).strict(),
  z.object({ type: z.literal("asset"), asset_id: z.string().min(1) }).strict(),
]);
export type Attachment = z.infer<typeof attachmentSchema>;

export const sendBodySchema = z
  .object({
    content: z.string(),
    attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).default([]),
    stream: z.boolean().default(true),
    request_options: z.record(z.string(), z.unknown()).optional(),
    /** Makes the send idempotent for 10 minutes (client-request-ids.ts). */
    client_request_id: clientRequestIdSchema.optional(),
  })
  .strict()
  .refine((body) => body.content.trim() !== "" || body.attachments.length > 0, {
    message: "content must not be empty (an image-only message needs at least one attachment)",
    path: ["content"],
  });
export type SendBody = z.infer<typeof sendBodySchema>;

/** Throws a DomainError for the first attachment or request option the send cannot use. */
export function checkSend(body: SendBody, sessionId: string, agent: ResolvedAgent, assets: AssetStore): void {
  body.attachments.forEach((attachment, index) => checkAttachment(attachment, index, sessionId, agent, assets));
  if (body.request_options) checkRequestOptions(agent, body.request_options);
}

/** Refuses request options the agent's provider would refuse (reserved keys...), as 400 at `body.request_options`. */
export function checkRequestOptions(agent: ResolvedAgent, options: Record<string, unknown>): void {
  try {
    mergeRequestOptions(agent.settings, options);
  } catch (error) {
    if (error instanceof ProviderError)
      throw invalid("invalid_input", error.message, [{ path: "body.request_options", message: error.message }]);
    throw error;
  }
}

function checkAttachment(
  attachment: Attachment,
  index: number,
  sessionId: string,
  agent: ResolvedAgent,
  assets: AssetStore,
): void {
  const settings = agent.settings;
  const where = `body.attachments.${index}`;
  if (attachment.type === "image_url" && !settings.allow_image_attachment_url) {
    throw invalid(
      "attachment_not_allowed",
      `${where}: remote image URLs are disabled for agent ${agent.agent_id} (allow_image_attachment_url)`,
    );
  }
  if (attachment.type !== "image_url" && !settings.allow_image_attachment_base64) {
    throw invalid(
      "attachment_not_allowed",
      `${where}: inline and uploaded images are disabled for agent ${agent.agent_id} (allow_image_attachment_base64)`,
    );
  }
  if (attachment.type === "image_data") {
    const decoded = decodeDataUrl(attachment.data_url);
    if (!decoded || decoded.bytes.length === 0)
      throw invalid("invalid_input", `${where}.data_url: must be a base64 data: URL (data:image/png;base64,...)`);
    assets.checkImage(decoded.bytes, decoded.media_type);
  }
  if (attachment.type === "asset") assets.resolve(sessionId, attachment.asset_id);
}
