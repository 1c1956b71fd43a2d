// The shapes of an export (docs/export.md "Format"): GET /export answers a JSON array of chat records, one per
// session, and GET /sessions/{id}/export?format=json the same array with one record, so either file imports as it
// is. A record carries the session as GET /sessions/{id} shows it (every field, whatever later work adds to sessions)
// and the bytes of the images it uses, so nothing depends on the server it came from.
import { z } from "zod";
import type { Message } from "../../client/wire/messages.ts";
import { lazySchema } from "../../client/wire/built-on-first-use.ts";
import { messageSchema, sessionSchema } from "../../client/wire/index.ts";
import { ASSET_ID_PATTERN } from "../assets/store.ts";

export const CHAT_RECORD_FORMAT = "chat-relay.chat";
export const CHAT_RECORD_VERSION = 1;

export const exportedAssetSchema = z
  .object({
    asset_id: z.string().regex(ASSET_ID_PATTERN, "asset_id must be ast_ and 32 hex digits"),
    media_type: z.string().min(1).max(100),
    filename: z.string().max(255).optional(),
    /** The image's bytes, base64. */
    data: z.base64(),
  })
  .strict();
export type ExportedAsset = z.infer<typeof exportedAssetSchema>;

/** A chat's copy of a document it used (docs/documents.md "Export and import"): its pages' text, so citations open. */
export const exportedDocumentSchema = z
  .object({
    document_id: z.string().min(1).max(100),
    name: z.string().max(500),
    media_type: z.string().min(1).max(200),
    pages: z
      .array(
        z
          .object({
            page: z.number().int().min(1).max(100_000),
            heading: z.string().max(1000).optional(),
            text: z.string(),
          })
          .strict(),
      )
      .max(100_000)
      .refine((pages) => new Set(pages.map((p) => p.page)).size === pages.length, "a page number is given twice"),
  })
  .strict();
export type ExportedDocument = z.infer<typeof exportedDocumentSchema>;

/** Messages keep every field they carry (a turn's versions, whatever comes later); the wire schema drops them. */
// messageSchema is declared as a ZodType (its versions nest messages), but it is an object schema: its shape is there.
// Typed as Message: the fields it does not name pass through untouched. Like every schema read from the wire's, it is
// built on first use (docs/app.md "Start-up", SU12): read at this module's load, the session's schema was built then.
export const looseMessageSchema = lazySchema(() =>
  z.looseObject((messageSchema as unknown as z.ZodObject).shape),
) as unknown as z.ZodType<Message>;
const exportedSessionSchema = lazySchema(() =>
  sessionSchema.unwrap().extend({ messages: z.array(looseMessageSchema) }),
);

export const chatRecordSchema = z
  .object({
    format: z.literal(CHAT_RECORD_FORMAT),
    version: z.literal(
      CHAT_RECORD_VERSION,
      `only version ${CHAT_RECORD_VERSION} of ${CHAT_RECORD_FORMAT} is understood`,
    ),
    /** Stable across servers: a chat imported again under the same source id is skipped. */
    source_id: z.string().min(1).max(500),
    exported_at: z.string(),
    session: exportedSessionSchema,
    assets: z.array(exportedAssetSchema).default([]),
    documents: z
      .array(exportedDocumentSchema)
      .max(1000)
      .refine(
        (documents) => new Set(documents.map((d) => d.document_id)).size === documents.length,
        "a document_id is given twice",
      )
      .default([]),
  })
  .strict();
export type ChatRecord = z.infer<typeof chatRecordSchema>;

/**
 * What an import checks of a record first: its messages are then checked one by one, in slices (importer.ts), as a
 * ChatGPT conversation's nodes are: 10,000 of them in one parse held the server.
 */
export const importedRecordSchema = chatRecordSchema.extend({
  session: lazySchema(() => sessionSchema.unwrap().extend({ messages: z.array(z.unknown()) })),
});

/** A chat ready to store, whatever file it came from. */
export interface ImportedChat {
  source_id: string;
  agent_id: string;
  /** The session's own fields (title, model, archived, created_at, metadata, ...) without its id and version. */
  fields: Record<string, unknown>;
  messages: z.infer<typeof messageSchema>[];
  assets: ExportedAsset[];
  /** The chat's copies of the documents it used (chat-relay records only). */
  documents: ExportedDocument[];
  /** The id the session had where it was exported (forks name their source by it). */
  original_id?: string;
  original_source_session_id?: string;
}

const chatgptMessageSchema = z.looseObject({
  id: z.string().optional(),
  author: z.looseObject({ role: z.string() }),
  create_time: z.number().nullable().optional(),
  content: z.looseObject({
    content_type: z.string(),
    parts: z.array(z.unknown()).optional(),
    text: z.string().optional(),
  }),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type ChatgptMessage = z.infer<typeof chatgptMessageSchema>;

export const chatgptNodeSchema = z.looseObject({
  id: z.string().optional(),
  message: chatgptMessageSchema.nullable().optional(),
  parent: z.string().nullable().optional(),
  children: z.array(z.string()).default([]),
});
export type ChatgptNode = z.infer<typeof chatgptNodeSchema>;

/** One conversation of ChatGPT's conversations.json (Settings → Data controls → Export data). */
export const chatgptConversationSchema = z.looseObject({
  title: z.string().nullable().optional(),
  create_time: z.number().nullable().optional(),
  update_time: z.number().nullable().optional(),
  // Its nodes are checked one by one, in slices (chatgptNodes in chatgpt.ts): 10,000 of them in one parse stalled the
  // server. Kept as the object it is: a record schema would copy it into a plain object key by key (`__proto__`!).
  mapping: z.custom<Record<string, unknown>>(
    (value) => value !== null && typeof value === "object" && !Array.isArray(value),
    "mapping must be an object of nodes",
  ),
  current_node: z.string().nullable().optional(),
  conversation_id: z.string().nullable().optional(),
  id: z.string().nullable().optional(),
});
export type ChatgptConversation = z.infer<typeof chatgptConversationSchema>;

/** Which format an element of an import file is in, from its own fields. */
export function formatOf(value: unknown): "chat-relay" | "chatgpt" | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (record["format"] === CHAT_RECORD_FORMAT) return "chat-relay";
  if (record["mapping"] !== null && typeof record["mapping"] === "object") return "chatgpt";
  return undefined;
}
