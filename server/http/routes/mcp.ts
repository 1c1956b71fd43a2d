// GET /mcp (admin): each configured MCP server with its status, its exposed tools and their approval policy, the
// tools left out and why, the last error and the restart count (docs/tools.md "GET /mcp"). Contract:
// client/wire/routes/mcp.ts.
import type { FastifyInstance } from "fastify";
import { mcpReportRoute } from "../../../client/wire/routes/mcp.ts";
import type { ServerContext } from "../../context.ts";
import { serveRoute } from "../serve-route.ts";

export function registerMcpRoutes(app: FastifyInstance, ctx: Pick<ServerContext, "mcp">): void {
  serveRoute(app, mcpReportRoute, () => ({ servers: ctx.mcp.report() }));
}
