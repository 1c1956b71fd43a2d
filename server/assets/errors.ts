// The refusals of attachment input, shared by the extension routes and the send route, as DomainErrors so the
// store and the send checks need no HTTP; the error handler gives them their statuses.
import { invalid, notFound, tooLarge as tooLargeError, unsupportedMedia } from "../errors.ts";

export const tooLarge = (size: number, max: number) =>
  tooLargeError(
    "attachment_too_large",
    `the attachment is ${size} bytes; the limit is ${max} bytes (assets.max_bytes)`,
    { size, max_bytes: max },
  );

export const unsupportedImage = (declared: string | undefined) =>
  unsupportedMedia(
    "unsupported_media_type",
    `the bytes are not a PNG, JPEG, GIF or WebP image${declared ? ` (declared ${declared})` : ""}`,
  );

export const mediaTypeMismatch = (declared: string, sniffed: string) =>
  invalid("media_type_mismatch", `the attachment is declared ${declared} but its bytes are ${sniffed}`, {
    declared,
    detected: sniffed,
  });

export const assetNotFound = (sessionId: string, assetId: string) =>
  notFound(
    "asset_not_found",
    `session ${sessionId} has no attachment "${assetId}" (assets belong to their session and its forks)`,
  );
