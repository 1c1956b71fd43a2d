// One log line per HTTP request, written when the reply is sent: method, url, status and time taken (Fastify's own
// request logging wrote two, "incoming request" and "request completed", and is turned off in server-options.ts).
// CORS preflights say nothing an operator needs: their line is at debug.
import type { FastifyInstance } from "fastify";

export function installRequestLog(app: FastifyInstance): void {
  app.addHook("onResponse", async (request, reply) => {
    const fields = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime),
    };
    if (request.method === "OPTIONS") request.log.debug(fields, "request completed");
    else request.log.info(fields, "request completed");
  });
}
