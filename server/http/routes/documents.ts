// Documents (docs/documents.md): POST /documents (the file's bytes), the library, a page's text, DELETE, and the text
// of a chat's copy for anyone who may read the chat. A library is its person's own.
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  addDocumentRoute,
  chatDocumentFileRoute,
  chatDocumentTextRoute,
  deleteDocumentRoute,
  documentTextRoute,
  getDocumentRoute,
  listDocumentsRoute,
} from "../../../client/wire/routes/documents.ts";
import type { ServerContext } from "../../context.ts";
import { invalid, tooLarge, unsupportedMedia } from "../../errors.ts";
import { fromUploadBody } from "../../../client/wire/routes/uploads.ts";
import { uploadOwnerOf } from "../../uploads/owner.ts";
import { isJson, jsonOf, namesUpload } from "../json-body.ts";
import { parseInput } from "../validate.ts";
import { drainThenRefuse, readBodyUpTo } from "../bounded-body.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";

/** Whose library a call works on: the caller's person's (another person's document is 404 document_not_found). */
function ownerOf(request: FastifyRequest): string {
  return callerOfRoute(request).person_id;
}

/**
 * Adds an upload's file to the caller's library: POST /documents {upload_id} and POST /uploads/{id}/complete. A person
 * who may not add a document now is refused before the upload is taken, so they keep it to complete later; and the
 * taken body is held by no frame that waits (docs/documents.md "How many are read at once").
 */
export function addUploadedDocument(ctx: ServerContext, request: FastifyRequest, uploadId: string) {
  ctx.documents.requireRoom(ownerOf(request));
  const taken = ctx.uploads.take(uploadOwnerOf(request.caller), uploadId, "document");
  const adding = ctx.documents.add(ownerOf(request), taken.name ?? "document", taken.body, taken.content_type);
  return adding.then((document) => ({ document }));
}

export function registerDocumentRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { documents } = ctx;
  serveRoute(app, listDocumentsRoute, ({ request }) => ({ documents: documents.list(ownerOf(request)) }));
  serveRoute(app, getDocumentRoute, ({ params, request }) => ({
    document: documents.get(ownerOf(request), params.document_id),
  }));
  serveRoute(app, documentTextRoute, ({ params, query, request }) =>
    documents.text(ownerOf(request), params.document_id, query.page),
  );
  serveRoute(app, deleteDocumentRoute, async ({ params, request }) => {
    await documents.delete(ownerOf(request), params.document_id);
  });
  // The chat guard (server/http/session-access.ts) let by whoever may read the chat: its copies are theirs to read.
  serveRoute(app, chatDocumentTextRoute, ({ params, query }) => {
    ctx.sessions.requireExists(params.session_id);
    return documents.chatText(params.session_id, params.document_id, query.page);
  });
  // The original file, for the same readers, while the person whose library holds it may still read the chat.
  serveRoute(app, chatDocumentFileRoute, async ({ params, query, reply }) => {
    ctx.sessions.requireExists(params.session_id);
    const ownerReads = (owner: string) => ctx.audiences.accessOf(owner, params.session_id) !== "none";
    const file = await documents.chatFile(params.session_id, params.document_id, query.part, ownerReads);
    return reply.header("content-type", file.media_type).header("cache-control", "private, max-age=0").send(file.bytes);
  });

  // The file is read by this scope's own parser (any type: the bytes decide), counted against documents.max_bytes.
  void app.register(async (scope) => {
    const maxBytes = () => ctx.config.documents.max_bytes;
    const refusal = () =>
      tooLarge("document_too_large", `the file is larger than documents.max_bytes (${maxBytes()} bytes)`, {
        max_bytes: maxBytes(),
      });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => {
      readBodyUpTo(payload, maxBytes(), refusal).then((bytes) => done(null, bytes), done);
    });
    scope.addHook("onRequest", async (request, reply) => {
      if (request.method !== "POST") return;
      if (Number(request.headers["content-length"] ?? 0) > maxBytes()) {
        reply.header("connection", "close");
        await drainThenRefuse(request.raw, maxBytes(), refusal());
      }
    });
    serveRoute(scope, addDocumentRoute, ({ query, request }) => {
      const json =
        query.name === undefined && isJson(request.headers["content-type"]) ? jsonOf(request.body) : undefined;
      if (namesUpload(request.headers["content-type"], json))
        return addUploadedDocument(ctx, request, parseInput(fromUploadBody, json, "body").upload_id);
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw unsupportedMedia("unsupported_media_type", "POST /documents takes the file's bytes as the body");
      if (query.name === undefined)
        throw invalid("invalid_input", "POST /documents with the file's bytes needs ?name=<file name>", [
          { path: "query.name", message: "Required" },
        ]);
      const adding = documents.add(ownerOf(request), query.name, request.body, request.headers["content-type"]);
      // Stored: a document waiting for a reading worker waits as its file, not as this body (not async, so no frame
      // waiting here holds it either).
      request.body = undefined;
      return adding.then((document) => ({ document }));
    });
  });
}
