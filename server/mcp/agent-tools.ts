// The tools one agent gets, with where each comes from, for GET /agents: plugin tools (every one, or those its
// `tools` list names) and the MCP tools its list reaches (docs/tools.md "Names").
import type { ResolvedAgent } from "../config/agents.ts";
import type { PluginLoader } from "../plugins/loader.ts";
import type { McpManager } from "./manager.ts";

export type AgentTool =
  { name: string; source: "plugin"; plugin: string } | { name: string; source: "mcp"; server: string };

export function agentTools(
  parts: { plugins?: Pick<PluginLoader, "tools"> | undefined; mcp?: Pick<McpManager, "toolsFor"> | undefined },
  agent: ResolvedAgent,
): AgentTool[] {
  const plugin: AgentTool[] = (parts.plugins?.tools.forAgent(agent.tools) ?? []).map((t) => ({
    name: t.name,
    source: "plugin",
    plugin: t.plugin,
  }));
  const mcp: AgentTool[] = (parts.mcp?.toolsFor(agent.tools) ?? []).map((t) => ({
    name: t.name,
    source: "mcp",
    server: t.plugin.slice("mcp:".length),
  }));
  return [...plugin, ...mcp];
}
