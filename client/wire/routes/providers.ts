// The provider area's routes: GET /agents (what frontends render: never the api_key) and
// GET /providers/{provider_id}/models (discovery; a failed discovery still answers 200 with `error`, because a custom
// model id is accepted).
import { z } from "zod";
import { agentListSchema, modelListSchema } from "../api.ts";
import { defineRoute } from "./route.ts";

export const agentsRoute = defineRoute("GET", "/agents", () => ({
  answer: agentListSchema,
}));

export const modelsRoute = defineRoute("GET", "/providers/:provider_id/models", () => ({
  params: z.object({ provider_id: z.string().min(1) }),
  query: z.object({ endpoint: z.string().min(1).optional(), agent_id: z.string().min(1).optional() }).strict(),
  answer: modelListSchema,
  errors: ["provider_not_found", "agent_not_found", "unknown_endpoint"],
}));
