// What POST /sessions/{id}/send's body must pass before anything is written (its schema is the route's contract,
// client/wire/routes/requests.ts): attachment kinds the agent allows, inline images that are real images within the size limit, assets the session may
// use, request options the provider accepts. A refused send leaves no trace (docs/runner.md R9). Refusals are
// `invalid` DomainErrors: the route and the error handler decide the status.
import type { z } from "zod";
import { sendAttachmentInput, sendRoute } from "../../client/wire/routes/requests.ts";
import { decodeDataUrl } from "../assets/sniff.ts";
import type { AssetStore } from "../assets/store.ts";
import type { ResolvedAgent } from "../config/agents.ts";
import { invalid } from "../errors.ts";
import { ProviderError } from "../provider/index.ts";
import { mergeRequestOptions } from "../provider/request.ts";

export type Attachment = z.infer<typeof sendAttachmentInput>;
export type SendBody = z.infer<typeof sendRoute.body>;

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
