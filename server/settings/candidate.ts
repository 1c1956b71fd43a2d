// Whether a config made by a patch (or read back from settings.json) is one the server can run: the config schema,
// the agents' references to providers, at least one agent, and no provider on a link-local address unless the config
// file allows it.
// Every problem comes back with its path, so PATCH /settings can answer all of them at once.
import { resolveAgents, type ResolvedAgent } from "../config/agents.ts";
import { ConfigError, configIssues } from "../config/load.ts";
import { configSchema, type Config } from "../config/schema.ts";
import type { SettingsIssue } from "./secrets.ts";
import { urlIsLinkLocal } from "./link-local.ts";

export interface Candidate {
  config: Config;
  agents: Map<string, ResolvedAgent>;
}

/** The config as JSON a patch applies to and a view shows: the parsed config, less what parsing added (transport). */
export function configInputOf(config: Config): Record<string, unknown> {
  const input = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  for (const server of Object.values(input.mcp_servers as Record<string, Record<string, unknown>>))
    delete server.transport;
  return input;
}

export function checkCandidate(
  input: unknown,
  allowLinkLocal: boolean,
): { candidate: Candidate } | { issues: SettingsIssue[] } {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) return { issues: configIssues(parsed.error) };
  const config = parsed.data;
  const issues = allowLinkLocal ? [] : linkLocalIssues(config);
  let agents: Map<string, ResolvedAgent> | undefined;
  try {
    agents = resolveAgents(config);
  } catch (error) {
    if (!(error instanceof ConfigError) || !error.issue) throw error;
    issues.push(error.issue);
  }
  // An empty map of agents parses, and every chat would then be 404 agent_not_found until an admin put one back
  // (docs/settings.md invariant 17). Without the map the server makes its own default agent.
  if (agents?.size === 0) issues.push({ path: "agents", message: "at least one agent: without one no chat can start" });
  return issues.length > 0 || !agents ? { issues } : { candidate: { config, agents } };
}

function linkLocalIssues(config: Config): SettingsIssue[] {
  const issues: SettingsIssue[] = [];
  const message =
    "a link-local address (cloud metadata): allowed only with settings.allow_link_local in the config file";
  for (const [id, provider] of Object.entries(config.providers)) {
    if (urlIsLinkLocal(provider.base_url)) issues.push({ path: `providers.${id}.base_url`, message });
    for (const [label, url] of Object.entries(provider.endpoint_options ?? {}))
      if (urlIsLinkLocal(url)) issues.push({ path: `providers.${id}.endpoint_options.${label}`, message });
  }
  for (const [name, server] of Object.entries(config.mcp_servers))
    if (server.transport === "http" && urlIsLinkLocal(server.url))
      issues.push({ path: `mcp_servers.${name}.url`, message });
  for (const [id, agent] of Object.entries(config.agents ?? {}))
    if (agent.base_url !== undefined && urlIsLinkLocal(agent.base_url))
      issues.push({ path: `agents.${id}.base_url`, message });
  // The speech backends are dialled as providers are, and their errors are answered to the caller.
  for (const part of ["stt", "tts"] as const) {
    const backend = config.speech?.[part];
    if (backend && "base_url" in backend && backend.base_url !== undefined && urlIsLinkLocal(backend.base_url))
      issues.push({ path: `speech.${part}.base_url`, message });
  }
  return issues;
}
