// The 4xx answers of attachment input, shared by the extension routes and the send route.
import { HttpError, badRequest, notFound } from "../http/errors.ts";

export const tooLarge = (size: number, max: number) =>
  new HttpError(413, "attachment_too_large", `the attachment is ${size} bytes; the limit is ${max} bytes (assets.max_bytes)`, { size, max_bytes: max });

export const unsupportedImage = (declared: string | undefined) =>
  new HttpError(415, "unsupported_media_type", `the bytes are not a PNG, JPEG, GIF or WebP image${declared ? ` (declared ${declared})` : ""}`);

export const mediaTypeMismatch = (declared: string, sniffed: string) =>
  badRequest("media_type_mismatch", `the attachment is declared ${declared} but its bytes are ${sniffed}`, { declared, detected: sniffed });

export const assetNotFound = (sessionId: string, assetId: string) =>
  notFound("asset_not_found", `session ${sessionId} has no attachment "${assetId}" (assets belong to their session and its forks)`);
