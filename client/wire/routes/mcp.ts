// GET /mcp (admin): each configured MCP server with its status, its exposed tools and their approval policy, the tools
// left out and why, the last error and the restart count (docs/tools.md "GET /mcp").
import { z } from "zod";
import { defineRoute } from "./route.ts";

export const mcpReportRoute = defineRoute({
  method: "GET",
  path: "/mcp",
  answer: z.looseObject({ servers: z.array(z.looseObject({})) }),
  status: 200,
  errors: [],
  admin: true,
});
