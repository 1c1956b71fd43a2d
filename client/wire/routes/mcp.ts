// The MCP servers as they run (docs/tools.md "GET /mcp"), and restarting one (docs/settings.md "Live"). The admin
// token only: a device, even an admin person's, may not read them (docs/tools.md invariant 9).
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute } from "./route.ts";

export const mcpServerReportSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    transport: z.enum(["stdio", "http"]),
    status: z.string(),
    tool_count: z.number().int().nonnegative(),
    tools: z.array(
      z.object({
        name: z.string(),
        tool: z.string(),
        approval_mode: z.enum(["always", "never", "auto"]),
        requires_approval: z.boolean(),
      }),
    ),
    left_out: z.array(z.object({ tool: z.string(), reason: z.string() })),
    last_error: z.string().nullable(),
    restarts: z.number().int().nonnegative(),
    dropped_messages: z.number().int().nonnegative(),
  }),
);
export type McpServerReport = z.infer<typeof mcpServerReportSchema>;

export const mcpReportRoute = defineRoute("GET", "/mcp", () => ({
  answer: z.object({ servers: z.array(mcpServerReportSchema) }),
  admin: true,
}));

export const restartMcpServerRoute = defineRoute("POST", "/mcp/:name/restart", () => ({
  params: z.object({ name: z.string().min(1).max(40) }),
  answer: z.void(),
  status: 204,
  errors: ["mcp_server_not_found"],
  admin: true,
}));
