// Image attachments of user messages (docs/runner.md "Attachments"): remote URLs, data URLs, and
// session-owned uploaded assets, which are read through deps.readAsset and inlined as data: URLs (no provider
// file API). allow_image_attachment_url and allow_image_attachment_base64 are enforced here. An asset that can
// no longer be read (deleted after its message was sent) is sent as the text part "[image removed]", so the
// conversation goes on; the send route refuses a message that names a missing asset (docs/runner.md).
import { z } from "zod";
import { ProviderError } from "./errors.ts";
import type { ProviderSettings } from "./settings.ts";
import type { ProviderDeps, ProviderLog } from "./types.ts";

/**
 * An attachment as stored in a message's metadata. Lenient on purpose: it reads history, whatever wrote it; what a
 * client may send is checked strictly once, at the route (client/wire/routes/requests.ts `sendAttachmentInput`).
 */
const storedAttachmentSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("image_url"), url: z.string().min(1) }),
  z.object({ type: z.literal("image_data"), data_url: z.string().startsWith("data:") }),
  z.object({ type: z.literal("asset"), asset_id: z.string().min(1) }),
  // A document reaches the model as passages of a system message, not as a part of the user's message.
  z.object({ type: z.literal("document"), document_id: z.string() }),
]);
type StoredAttachment = z.infer<typeof storedAttachmentSchema>;

type ImageAttachment = Exclude<StoredAttachment, { type: "document" }>;

/** The attachments that are images (a message may carry documents too). */
export function imageAttachments(attachments: StoredAttachment[]): ImageAttachment[] {
  return attachments.filter((a): a is ImageAttachment => a.type !== "document");
}

export interface ImagePart {
  type: "image_url";
  image_url: { url: string };
}

export interface TextPart {
  type: "text";
  text: string;
}

/** What the model reads where an uploaded image was that can no longer be read. */
export const REMOVED_IMAGE_TEXT = "[image removed]";

export interface ImageContext {
  settings: ProviderSettings;
  readAsset: ProviderDeps["readAsset"];
  sessionId: string | undefined;
  /** Where a removed image is reported (info). */
  log?: ProviderLog | undefined;
}

/** Validates metadata.attachments of one message; a malformed entry is an invalid_request naming its position. */
export function parseAttachments(value: unknown, messageIndex: number): StoredAttachment[] {
  if (value === undefined) return [];
  const parsed = z.array(storedAttachmentSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ProviderError(
    "invalid_request",
    `messages[${messageIndex}].metadata.attachments.${issue.path.join(".")}: ${issue.message}`,
  );
}

/**
 * One attachment as a chat-completions image part, after the settings allow it; an asset that can no longer
 * be read as the text part REMOVED_IMAGE_TEXT.
 */
export async function imagePart(attachment: ImageAttachment, ctx: ImageContext): Promise<ImagePart | TextPart> {
  const url = await imageUrl(attachment, ctx);
  return url === undefined ? { type: "text", text: REMOVED_IMAGE_TEXT } : { type: "image_url", image_url: { url } };
}

/** The URL to send, or undefined for an asset that can no longer be read. */
async function imageUrl(attachment: ImageAttachment, ctx: ImageContext): Promise<string | undefined> {
  switch (attachment.type) {
    case "image_url":
      // A data: URL given as image_url is inline data all the same.
      if (attachment.url.startsWith("data:")) return requireInline(ctx, attachment.url);
      if (!/^https?:\/\//i.test(attachment.url)) {
        throw new ProviderError(
          "invalid_request",
          `image attachment URL "${attachment.url.slice(0, 80)}" is neither http(s) nor a data: URL`,
        );
      }
      if (!ctx.settings.allow_image_attachment_url) {
        throw new ProviderError(
          "attachment_not_allowed",
          "remote image URL attachments are disabled for this provider (allow_image_attachment_url is false)",
        );
      }
      return attachment.url;
    case "image_data":
      return requireInline(ctx, attachment.data_url);
    case "asset":
      return readAssetUrl(attachment.asset_id, ctx);
  }
}

function requireInline(ctx: ImageContext, url: string): string {
  if (!ctx.settings.allow_image_attachment_base64) {
    throw new ProviderError(
      "attachment_not_allowed",
      "inline images (data URLs and uploaded attachments) are disabled for this provider (allow_image_attachment_base64 is false)",
    );
  }
  return url;
}

async function readAssetUrl(assetId: string, ctx: ImageContext): Promise<string | undefined> {
  // The setting is checked before the asset is read, so a forbidden upload costs no disk read.
  requireInline(ctx, "");
  if (!ctx.readAsset || ctx.sessionId === undefined) {
    throw new ProviderError(
      "attachment_unavailable",
      `attachment asset ${assetId} cannot be read: the provider was given no readAsset or no session_id`,
    );
  }
  let asset;
  try {
    asset = await ctx.readAsset(ctx.sessionId, assetId);
  } catch (error) {
    // Deleted (or its file lost) after the message that names it was stored. Failing here would fail every
    // later request of the session and of its forks; the send route already refused a new message naming it.
    ctx.log?.info(
      {
        session_id: ctx.sessionId,
        asset_id: assetId,
        reason: error instanceof Error ? error.message : String(error),
        sent_as: REMOVED_IMAGE_TEXT,
      },
      "attachment asset cannot be read; sent as text",
    );
    return undefined;
  }
  if (!asset.media_type.startsWith("image/")) {
    throw new ProviderError("invalid_request", `attachment asset ${assetId} is ${asset.media_type}, not an image`);
  }
  return `data:${asset.media_type};base64,${Buffer.from(asset.bytes).toString("base64")}`;
}
