// GET /health (no token): the server answers. Contract: client/wire/routes/health.ts.
import type { FastifyInstance } from "fastify";
import { healthRoute } from "../../../client/wire/routes/health.ts";
import { serveRoute } from "../serve-route.ts";

export function registerHealthRoutes(app: FastifyInstance): void {
  serveRoute(app, healthRoute, () => ({ ok: true as const }));
}
