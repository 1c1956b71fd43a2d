// Resolves the config's providers and agents into what a request needs: one agent's effective provider settings
// (the provider's keys with the agent's overrides applied on top).
import type { EmbeddingRef } from "../documents/config.ts";
import { providerSettingsSchema, type ProviderSettings } from "../provider/settings.ts";
import { ConfigError } from "./load.ts";
import type { Config } from "./schema.ts";

export interface ResolvedAgent {
  agent_id: string;
  provider_id: string;
  settings: ProviderSettings;
  system_prompt: string | undefined;
  /** Tool names the agent may use; undefined means every loaded tool. */
  tools: string[] | undefined;
  /** The embedding model of hybrid document retrieval; undefined: BM25 only. */
  embedding?: EmbeddingRef | undefined;
}

/** Used when the config names no provider: a local llama.cpp-style server on its default port. */
export const BUILT_IN_PROVIDER = {
  provider: "reference_compatible",
  model: "default",
  base_url: "http://127.0.0.1:8080/v1",
} as const;

export function resolveAgents(config: Config): Map<string, ResolvedAgent> {
  const providers = new Map(Object.entries(config.providers));
  if (providers.size === 0) providers.set("default", providerSettingsSchema.parse(BUILT_IN_PROVIDER));
  const agents = config.agents ?? {
    default: { provider_id: providers.has("default") ? "default" : [...providers.keys()][0]! },
  };
  const resolved = new Map<string, ResolvedAgent>();
  for (const [agentId, agent] of Object.entries(agents)) {
    const { provider_id, system_prompt, tools, embedding, ...overrides } = agent;
    const base = providers.get(provider_id);
    if (!base) throw agentError(`agents.${agentId}.provider_id`, `no provider "${provider_id}" in providers`);
    if (embedding && !providers.has(embedding.provider_id))
      throw agentError(
        `agents.${agentId}.embedding.provider_id`,
        `no provider "${embedding.provider_id}" in providers`,
      );
    const merged = providerSettingsSchema.safeParse({ ...base, ...stripUndefined(overrides) });
    if (!merged.success) {
      const issue = merged.error.issues[0]!;
      throw agentError(`agents.${agentId}.${issue.path.join(".")}`, issue.message);
    }
    resolved.set(agentId, {
      agent_id: agentId,
      provider_id,
      settings: merged.data,
      system_prompt,
      tools,
      ...(embedding ? { embedding } : {}),
    });
  }
  return resolved;
}

function agentError(path: string, message: string): ConfigError {
  return new ConfigError(`config error at ${path}: ${message}`, { path, message });
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
