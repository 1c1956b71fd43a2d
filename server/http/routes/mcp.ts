// GET /mcp (admin): each configured MCP server with its status, its exposed tools and their approval policy, the
// tools left out and why, the last error and the restart count (docs/tools.md "GET /mcp").
import type { FastifyInstance } from "fastify";
import type { ServerContext } from "../../context.ts";
import { requireAdmin } from "../auth.ts";

export function registerMcpRoutes(app: FastifyInstance, ctx: Pick<ServerContext, "mcp">): void {
  app.get("/mcp", async (request) => {
    requireAdmin(request);
    return { servers: ctx.mcp.report() };
  });
}
