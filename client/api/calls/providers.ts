// The typed calls of the providers routes (client/wire/routes/providers.ts): agents and models.
import type { AgentView, ModelList } from "../../wire/api.ts";
import { agentsRoute, modelsRoute } from "../../wire/routes/providers.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class ProviderCalls extends RouteCaller {
  async listAgents(): Promise<AgentView[]> {
    return (await this.call(agentsRoute, {})).agents;
  }

  /** Discovered models of a provider; `agent_id` applies that agent's overrides (base_url, key). */
  async listModels(providerId: string, options: { agent_id?: string; endpoint?: string } = {}): Promise<ModelList> {
    return this.call(modelsRoute, { params: { provider_id: providerId }, query: options });
  }
}
