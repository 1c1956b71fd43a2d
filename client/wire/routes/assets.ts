// The attachments extension `reference_compatible_attachments` (docs/runner.md "Attachments"): one route,
// POST /sessions/{id}/extensions/reference_compatible_attachments/{action}, whose action is store_attachment (JSON with
// base64, or a raw image/* body: 201), delete_attachment or download_attachment (JSON {asset_id}; the download answers
// the bytes). The server serves `attachmentRoute` and reads the body by action with the schemas below; the library
// calls each action through its own contract (the same route with the action fixed).
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { deletedAttachmentSchema, storedAttachmentSchema } from "../api.ts";
import { bytesAnswer, defineRoute } from "./route.ts";

export const ATTACHMENTS_EXTENSION = "reference_compatible_attachments";
export const ATTACHMENT_ACTIONS = ["store_attachment", "delete_attachment", "download_attachment"] as const;

const path = `/sessions/:session_id/extensions/${ATTACHMENTS_EXTENSION}/:action` as const;
const errors = [
  "session_not_found",
  "unknown_action",
  "asset_not_found",
  "asset_not_owned",
  "attachment_too_large",
  "unsupported_media_type",
  "media_type_mismatch",
] as const;

export const storeAttachmentBody = lazySchema(() =>
  z
    .object({
      data_base64: z
        .string()
        .min(1)
        .regex(/^[A-Za-z0-9+/=\s]+$/, "must be base64"),
      media_type: z.string().min(1).optional(),
      filename: z.string().min(1).max(255).optional(),
    })
    .strict(),
);
/** A raw image body's query: its file name. */
export const rawAttachmentQuery = lazySchema(() =>
  z.object({ filename: z.string().min(1).max(255).optional() }).strict(),
);
export const assetIdBody = lazySchema(() => z.object({ asset_id: z.string().min(1) }).strict());

/** What the server registers: every action name (an unknown one is 404 unknown_action), the body read by action. */
export const attachmentRoute = defineRoute("POST", path, () => ({
  params: z.object({ session_id: z.string().min(1), action: z.string() }).strict(),
  rawBody: true,
  answer: z.unknown(),
  errors,
}));

const actionParams = <A extends (typeof ATTACHMENT_ACTIONS)[number]>(action: A) =>
  z.object({ session_id: z.string().min(1), action: z.literal(action) }).strict();

export const storeAttachmentRoute = defineRoute("POST", path, () => ({
  params: actionParams("store_attachment"),
  body: storeAttachmentBody,
  answer: storedAttachmentSchema,
  status: 201,
  errors,
}));

export const deleteAttachmentRoute = defineRoute("POST", path, () => ({
  params: actionParams("delete_attachment"),
  body: assetIdBody,
  answer: deletedAttachmentSchema,
  errors,
}));

export const downloadAttachmentRoute = defineRoute("POST", path, () => ({
  params: actionParams("download_attachment"),
  body: assetIdBody,
  answer: bytesAnswer,
  bytes: true,
  errors,
}));
