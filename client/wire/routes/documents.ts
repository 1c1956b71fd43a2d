// Documents (docs/documents.md): a person's library, read page by page, and the text of a chat's copy.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { documentRecordSchema } from "../events.ts";
import { bytesAnswer, defineRoute } from "./route.ts";
import { integerParam } from "./query.ts";

const documentParams = lazySchema(() => z.object({ document_id: z.string().min(1).max(100) }).strict());
const pageQuery = lazySchema(() => z.object({ page: integerParam("page", 1, 1_000_000).default(1) }).strict());
const pageAnswer = lazySchema(() =>
  z.object({ page: z.number().int(), heading: z.string().optional(), text: z.string() }),
);
export type DocumentPage = z.infer<typeof pageAnswer>;

/** The body is the file's bytes (its type in Content-Type, or detected) and `name` says its file name; or, without
 *  `name`, JSON `{upload_id}` (client/wire/routes/uploads.ts): a file sent in parts. */
export const addDocumentRoute = defineRoute("POST", "/documents", () => ({
  query: z.object({ name: z.string().min(1).max(255).optional() }).strict(),
  rawBody: true,
  answer: z.object({ document: documentRecordSchema }),
  status: 201,
  errors: [
    "document_too_large",
    "too_many_pages",
    "unsupported_media_type",
    "media_type_mismatch",
    "document_unreadable",
    "upload_not_found",
    "upload_incomplete",
    "too_many_documents_reading",
    "shutting_down",
  ],
}));

export const listDocumentsRoute = defineRoute("GET", "/documents", () => ({
  answer: z.object({ documents: z.array(documentRecordSchema) }),
}));

export const getDocumentRoute = defineRoute("GET", "/documents/:document_id", () => ({
  params: documentParams,
  answer: z.object({ document: documentRecordSchema }),
  errors: ["document_not_found"],
}));

export const documentTextRoute = defineRoute("GET", "/documents/:document_id/text", () => ({
  params: documentParams,
  query: pageQuery,
  answer: pageAnswer,
  errors: ["document_not_found", "page_not_found"],
}));

export const deleteDocumentRoute = defineRoute("DELETE", "/documents/:document_id", () => ({
  params: documentParams,
  answer: z.void(),
  status: 204,
  errors: ["document_not_found"],
}));

export const chatDocumentTextRoute = defineRoute("GET", "/sessions/:session_id/documents/:document_id/text", () => ({
  params: z.object({ session_id: z.string().min(1), document_id: z.string().min(1).max(100) }).strict(),
  query: pageQuery,
  answer: pageAnswer,
  errors: ["session_not_found", "document_not_found", "page_not_found"],
}));

/** How much of a document's file one call answers: a part sealed for the relay (its base64 twice over, 16/9 of it)
 *  stays under the bridge's frame bound. */
export const DOCUMENT_FILE_PART_BYTES = 512 * 1024;

/** A part of the file a chat's document was read from (a PDF the viewer renders), for whoever may read the chat while
 *  the library still keeps the file: `part` N is its bytes from N × DOCUMENT_FILE_PART_BYTES, a shorter part is the
 *  last, a part past the end is empty. */
export const chatDocumentFileRoute = defineRoute("GET", "/sessions/:session_id/documents/:document_id/file", () => ({
  params: z.object({ session_id: z.string().min(1), document_id: z.string().min(1).max(100) }).strict(),
  query: z.object({ part: integerParam("part", 0, 1_000_000).default(0) }).strict(),
  answer: bytesAnswer,
  bytes: true,
  errors: ["session_not_found", "document_not_found"],
}));
