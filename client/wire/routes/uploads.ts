// Uploads in parts (docs/uploads.md): a body too large for one relayed call (a document, a recording) is declared,
// sent part by part, and completed; completing answers what the direct route would (POST /documents,
// POST /audio/transcriptions). Every part but the last is exactly `part_bytes` long; the last is what is left.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { documentRecordSchema } from "../events.ts";
import { defineRoute } from "./route.ts";

/** Raw bytes of one part: its base64 (with the sealed call's own base64 around it) fits one relayed frame. */
export const UPLOAD_PART_BYTES = 512 * 1024;

export const uploadKindSchema = z.enum(["document", "audio"]);
export type UploadKind = z.infer<typeof uploadKindSchema>;

const uploadParams = lazySchema(() => z.object({ upload_id: z.string().min(1).max(100) }).strict());

export const createUploadRoute = defineRoute("POST", "/uploads", () => ({
  body: z
    .object({
      kind: uploadKindSchema,
      /** The file's name (a document's: its extension types a text file); a recording needs none. */
      name: z.string().min(1).max(255).optional(),
      /** What the direct route would read in Content-Type. */
      content_type: z.string().min(1).max(255),
      /** The whole body's length: it fixes how many parts there are. */
      bytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    })
    .strict(),
  answer: z.object({ upload_id: z.string(), part_bytes: z.number().int() }),
  status: 201,
  errors: [
    "document_too_large",
    "audio_too_large",
    "unsupported_media_type",
    "speech_not_configured",
    "too_many_uploads",
  ],
}));

/** A part in JSON: its bytes as base64. Over direct HTTP the raw bytes (application/octet-stream) may come instead. */
export const uploadPartBody = lazySchema(() =>
  z
    .object({
      data_base64: z
        .string()
        .min(1)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
    })
    .strict(),
);

export const putUploadPartRoute = defineRoute("PUT", "/uploads/:upload_id/parts/:n", () => ({
  params: uploadParams
    .unwrap()
    .extend({
      n: z
        .string()
        .regex(/^\d{1,7}$/, "n must be a part's index from 0")
        .transform(Number),
    })
    .strict(),
  rawBody: true,
  answer: z.object({ received_parts: z.number().int(), received_bytes: z.number().int() }),
  errors: [
    "upload_not_found",
    "upload_part_out_of_order",
    "upload_part_repeated",
    "upload_part_too_large",
    "upload_part_incomplete",
    "insufficient_storage",
  ],
}));

/** Completing answers the direct route's body: `{document}` (201) for a document, `{text}` (200) for a recording. */
export const completeUploadRoute = defineRoute("POST", "/uploads/:upload_id/complete", () => ({
  params: uploadParams,
  answer: z.union([z.object({ document: documentRecordSchema }), z.object({ text: z.string() })]),
  errors: [
    "upload_not_found",
    "upload_incomplete",
    "too_many_pages",
    "unsupported_media_type",
    "media_type_mismatch",
    "document_unreadable",
    "too_many_documents_reading",
    "shutting_down",
    "speech_not_configured",
    "provider_error",
  ],
}));

/** POST /documents and POST /audio/transcriptions take this JSON body instead of the bytes: an upload whose parts
 *  have all arrived, finished as POST /uploads/{id}/complete would. */
export const fromUploadBody = lazySchema(() => z.object({ upload_id: z.string().min(1).max(100) }).strict());
