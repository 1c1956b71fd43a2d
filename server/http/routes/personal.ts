// A person's own settings and prompt library (docs/settings.md "Personal"): every device may call these, and each
// acts on the caller's person only (caller-person.ts).
import type { FastifyInstance } from "fastify";
import {
  createPromptRoute,
  deletePromptRoute,
  getPersonalSettingsRoute,
  listPromptsRoute,
  patchPersonalSettingsRoute,
  updatePromptRoute,
} from "../../../client/wire/routes/personal.ts";
import type { ServerContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { callerPerson } from "../caller-person.ts";
import { serveRoute } from "../serve-route.ts";

export function registerPersonalRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { personal } = ctx;

  serveRoute(app, getPersonalSettingsRoute, ({ request }) => personal.settings(callerPerson(request)));

  serveRoute(app, patchPersonalSettingsRoute, ({ request, body }) => {
    const agent = body.default_agent;
    if (typeof agent === "string" && !ctx.agents.has(agent))
      throw notFound("agent_not_found", `no agent "${agent}" in the settings`);
    return personal.updateSettings(callerPerson(request), body);
  });

  serveRoute(app, listPromptsRoute, ({ request }) => ({ prompts: personal.prompts(callerPerson(request)) }));

  serveRoute(app, createPromptRoute, ({ request, body }) => ({
    prompt: personal.createPrompt(callerPerson(request), body),
  }));

  serveRoute(app, updatePromptRoute, ({ request, params, body }) => ({
    prompt: personal.updatePrompt(callerPerson(request), params.prompt_id, body),
  }));

  serveRoute(app, deletePromptRoute, ({ request, params }) => {
    personal.deletePrompt(callerPerson(request), params.prompt_id);
  });
}
