// GET /mcp (admin): each configured MCP server with its status, its exposed tools and their approval policy, the
// tools left out and why, the last error and the restart count (docs/tools.md "GET /mcp"); POST /mcp/{name}/restart
// stops and starts one again (docs/settings.md "Live").
import type { FastifyInstance } from "fastify";
import { mcpReportRoute, restartMcpServerRoute } from "../../../client/wire/routes/mcp.ts";
import type { ServerContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";

export function registerMcpRoutes(app: FastifyInstance, ctx: Pick<ServerContext, "mcp">): void {
  serveRoute(app, mcpReportRoute, () => ({ servers: ctx.mcp.report() }));

  serveRoute(app, restartMcpServerRoute, async ({ params }) => {
    if (!(await ctx.mcp.restart(params.name)))
      throw notFound("mcp_server_not_found", `no MCP server "${params.name}" in the settings`);
  });
}
