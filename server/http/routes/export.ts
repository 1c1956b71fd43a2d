// Export and import (docs/export.md): one chat as Markdown or JSON, every chat a caller may read as JSON (streamed), and
// POST /import (admin) of such a file or of ChatGPT's conversations.json, received as a stream up to import.max_bytes.
// Contracts: client/wire/routes/export.ts.
import type { FastifyInstance } from "fastify";
import type { Readable } from "node:stream";
import { exportAllRoute, exportSessionRoute, importRoute } from "../../../client/wire/routes/export.ts";
import type { ServerContext } from "../../context.ts";
import { conflict, invalid } from "../../errors.ts";
import { ImportFormatError } from "../../export/array-scanner.ts";
import { chatMarkdown } from "../../export/markdown.ts";
import { receiveToFile, tooLargeError } from "../../export/receive.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";

const attachment = (name: string) => `attachment; filename="${name}"`;

export function registerExportRoutes(app: FastifyInstance, ctx: ServerContext): void {
  serveRoute(app, exportSessionRoute, ({ params: { session_id }, query: { format }, reply }) => {
    const record = ctx.exporter.record(session_id);
    const base = `chat-${session_id.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 36)}`;
    if (format === "markdown") {
      return reply
        .type("text/markdown; charset=utf-8")
        .header("content-disposition", attachment(`${base}.md`))
        .send(chatMarkdown(record.session, record.assets));
    }
    // An array of one record: the same shape as GET /export, so this file imports as it is.
    return reply.header("content-disposition", attachment(`${base}.json`)).send([record]);
  });

  // A device exports the chats its person may read; the admin token exports everything, audited (docs/people.md).
  serveRoute(app, exportAllRoute, ({ reply, request }) => {
    const caller = callerOfRoute(request);
    if (caller.kind === "admin")
      ctx.audit.record({ actor: "admin_token", action: "export_everything", person_id: null });
    return reply
      .type("application/json; charset=utf-8")
      .header("content-disposition", attachment("chats.json"))
      .send(ctx.exporter.all(caller.kind === "admin" ? undefined : caller.person_id));
  });

  // The body reaches the route as a stream (no parser reads it into memory): an encapsulated scope whose only
  // content-type parser hands the request's stream over as it is.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    registerImportRoute(scope, ctx);
  });
}

function registerImportRoute(scope: FastifyInstance, ctx: ServerContext): void {
  const maxBytes = ctx.config.import.max_bytes;
  // One import at a time: each may hold up to max_bytes of disk while it runs.
  let running = false;
  serveRoute(
    scope,
    importRoute,
    async ({ request, reply }) => {
      const declared = Number(request.headers["content-length"] ?? 0);
      if (declared > maxBytes) {
        reply.header("connection", "close");
        throw tooLargeError(maxBytes);
      }
      if (running) throw conflict("import_in_progress", "another import is running; send again when it has finished");
      running = true;
      try {
        const body = request.body as Readable | undefined;
        if (!body)
          throw invalid(
            "invalid_import",
            "the body is empty; an import is a JSON array (GET /export's answer, or ChatGPT's conversations.json)",
          );
        const received = await receiveToFile(body, ctx.dataDir, maxBytes, ctx.disk).catch((error: unknown) => {
          reply.header("connection", "close");
          throw error;
        });
        try {
          return await ctx.importer.importFile(received.file);
        } finally {
          received.remove();
        }
      } catch (error) {
        if (error instanceof ImportFormatError)
          throw invalid("invalid_import", `nothing was imported: ${error.message}`);
        throw error;
      } finally {
        running = false;
      }
    },
    { bodyOnDisk: true },
  );
}
