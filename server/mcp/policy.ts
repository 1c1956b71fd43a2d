// Whether a call asks a person first (docs/tools.md "Approvals"). MCP tool annotations are hints from the server,
// not promises, so `auto` trusts them only where the server is a program this machine runs (stdio) and only
// for the harmless combination: read-only and not open-world, both stated (MCP's defaults say the opposite).
// An HTTP server asks by default.
import type { ApprovalMode, McpServerConfig } from "./config.ts";

export interface ToolAnnotations {
  readOnlyHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

export function approvalModeOf(server: McpServerConfig, tool: string): ApprovalMode {
  const configured = server.require_approval;
  const fallback: ApprovalMode = server.transport === "stdio" ? "auto" : "always";
  if (configured === undefined) return fallback;
  if (typeof configured === "string") return configured;
  // An own property only: a tool named `__proto__` or `constructor` must not read Object.prototype's.
  return Object.hasOwn(configured, tool) ? configured[tool]! : fallback;
}

export function needsApproval(
  server: McpServerConfig,
  tool: string,
  annotations: ToolAnnotations | undefined,
): boolean {
  const mode = approvalModeOf(server, tool);
  if (mode === "always") return true;
  if (mode === "never") return false;
  // auto: the hints decide only on stdio; an HTTP server's hints are not trusted at all.
  if (server.transport !== "stdio") return true;
  // MCP's defaults are readOnlyHint false and openWorldHint true: both must be said explicitly.
  return !(annotations?.readOnlyHint === true && annotations.openWorldHint === false);
}
