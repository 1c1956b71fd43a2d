// Documents (docs/documents.md): POST /documents (the file's bytes), the library, a page's text, DELETE, and the text
// of a chat's copy for anyone who may read the chat. A library is its person's own.
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  addDocumentRoute,
  chatDocumentTextRoute,
  deleteDocumentRoute,
  documentTextRoute,
  getDocumentRoute,
  listDocumentsRoute,
} from "../../../client/wire/routes/documents.ts";
import type { ServerContext } from "../../context.ts";
import { tooLarge, unsupportedMedia } from "../../errors.ts";
import { drainThenRefuse, readBodyUpTo } from "../bounded-body.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";

/** Whose library a call works on: the caller's person's (another person's document is 404 document_not_found). */
function ownerOf(request: FastifyRequest): string {
  return callerOfRoute(request).person_id;
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
    serveRoute(scope, addDocumentRoute, async ({ query, request }) => {
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw unsupportedMedia("unsupported_media_type", "POST /documents takes the file's bytes as the body");
      const document = await documents.add(ownerOf(request), query.name, request.body, request.headers["content-type"]);
      return { document };
    });
  });
}
