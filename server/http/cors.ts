// CORS for browser apps served from another origin (a web companion, the client demo). Auth is a bearer token,
// never a cookie, so answering any origin exposes nothing a page could not already ask for with the token.
import type { FastifyInstance } from "fastify";

const ALLOWED_HEADERS = "authorization, content-type";
const ALLOWED_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";

export function installCors(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    if (request.headers.origin) reply.header("access-control-allow-origin", "*");
  });
  // Preflights carry no token: the auth hook lets this route through (http/auth.ts).
  app.options("*", async (_request, reply) => {
    reply
      .header("access-control-allow-methods", ALLOWED_METHODS)
      .header("access-control-allow-headers", ALLOWED_HEADERS)
      .header("access-control-max-age", "600")
      .status(204)
      .send();
  });
}
