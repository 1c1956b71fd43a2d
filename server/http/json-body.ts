// JSON bodies: Fastify's own parser (it guards against prototype poisoning), except that an empty body with a
// JSON content type means "no body". Clients routinely send `Content-Type: application/json` on a POST whose
// body is optional (create session, fork, dismiss, cancel); that must not be a 400.
import type { FastifyInstance } from "fastify";

export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    return parseJson(request, text, done);
  });
}
