// HTTP routes of the provider area: GET /agents (what frontends render: never the api_key) and
// GET /providers/:provider_id/models (discovery; a failed discovery still answers 200 with `error`, because a
// custom model id is accepted). Wired into server/app.ts by the app; auth is global. Contracts:
// client/wire/routes/providers.ts.
import type { FastifyInstance } from "fastify";
import { agentsRoute, modelsRoute } from "../../../client/wire/routes/providers.ts";
import type { ResolvedAgent } from "../../config/agents.ts";
import type { ServerContext } from "../../context.ts";
import {
  currentEndpointLabel,
  discoverModels,
  normalizeBaseUrl,
  selectEndpoint,
  type ProviderSettings,
} from "../../provider/index.ts";
import { invalid, notFound } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";
import { agentTools } from "../../mcp/agent-tools.ts";

/** What the routes read from the server context. */
export type ProviderRoutesContext = Pick<ServerContext, "agents" | "config" | "clock"> &
  Partial<Pick<ServerContext, "plugins" | "mcp">>;

export function registerProviderRoutes(app: FastifyInstance, ctx: ProviderRoutesContext): void {
  // max_image_bytes: the assets limit, so an app refuses a too-large image before uploading it (docs/app.md).
  serveRoute(app, agentsRoute, () => ({
    agents: [...ctx.agents.values()].map((agent) => ({
      ...agentView(agent),
      max_image_bytes: ctx.config.assets.max_bytes,
      tools: agentTools(ctx, agent),
    })),
  }));

  serveRoute(app, modelsRoute, async ({ params: { provider_id }, query }) => {
    let settings = providerSettings(ctx, provider_id, query.agent_id);
    if (query.endpoint !== undefined) {
      try {
        settings = selectEndpoint(settings, query.endpoint);
      } catch (error) {
        throw invalid("unknown_endpoint", (error as Error).message);
      }
    }
    const discovery = await discoverModels(settings, ctx.clock);
    return {
      provider_id,
      base_url: normalizeBaseUrl(settings.base_url),
      model: settings.model,
      // providers.<id>.models: the models people may pick (absent: every model the backend lists).
      models: settings.models ? discovery.models.filter((m) => settings.models!.includes(m.id)) : discovery.models,
      custom_model_allowed: true as const,
      ...(discovery.error !== undefined ? { error: discovery.error } : {}),
    };
  });
}

/** An agent as a frontend renders it. Built field by field so a secret can never leak through a spread. */
export function agentView(agent: ResolvedAgent) {
  const s = agent.settings;
  return {
    agent_id: agent.agent_id,
    provider_id: agent.provider_id,
    provider: s.provider,
    model: s.model,
    base_url: normalizeBaseUrl(s.base_url),
    endpoint: currentEndpointLabel(s) ?? null,
    endpoint_options: s.endpoint_options ?? {},
    request_options_ui: s.request_options_ui,
    show_usage: s.show_usage,
    show_estimated_cached_tokens: s.show_estimated_cached_tokens,
    allow_image_attachment_base64: s.allow_image_attachment_base64,
    allow_image_attachment_url: s.allow_image_attachment_url,
  };
}

/** The provider's settings: from an agent on it (its overrides apply when agent_id is given), else the config. */
function providerSettings(
  ctx: ProviderRoutesContext,
  providerId: string,
  agentId: string | undefined,
): ProviderSettings {
  if (agentId !== undefined) {
    const agent = ctx.agents.get(agentId);
    if (!agent || agent.provider_id !== providerId)
      throw notFound("agent_not_found", `no agent "${agentId}" on provider "${providerId}"`);
    return agent.settings;
  }
  // Own keys only: an id such as `__proto__` or `toString` names no provider, not an Object.prototype member.
  const configured = Object.hasOwn(ctx.config.providers, providerId) ? ctx.config.providers[providerId] : undefined;
  if (configured) return configured;
  const agent = [...ctx.agents.values()].find((a) => a.provider_id === providerId);
  if (agent) return agent.settings;
  throw notFound("provider_not_found", `no provider "${providerId}" in the config`);
}
