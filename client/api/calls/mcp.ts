// The typed calls of the MCP servers' routes (client/wire/routes/mcp.ts): the admin's.
import { mcpReportRoute, restartMcpServerRoute, type McpServerReport } from "../../wire/routes/mcp.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class McpCalls extends RouteCaller {
  /** Each MCP server as it runs (admin): status, tools with their approval, restarts, last error. */
  async listMcpServers(): Promise<McpServerReport[]> {
    return (await this.call(mcpReportRoute, {})).servers;
  }

  async restartMcpServer(name: string): Promise<void> {
    await this.call(restartMcpServerRoute, { params: { name } });
  }
}
