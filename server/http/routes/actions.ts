// Action routes: list and invoke application actions and session actions. POST body: `{input?}`; the
// answer is an ActionResponse (a one-shot result; nothing is stored). Unknown action or session: 404; input
// that fails the action's schema: 400; an action that throws: 422 action_failed; an action whose answer
// breaks the display/ui_effects rules: 500 invalid_action_result (the plugin's defect, not the caller's).
// Those two are DomainErrors of their own kinds (unprocessable, internal), like every other refusal. Contracts:
// client/wire/routes/actions.ts.
import type { FastifyInstance } from "fastify";
import {
  applicationActionsRoute,
  invokeApplicationActionRoute,
  invokeSessionActionRoute,
  sessionActionsRoute,
} from "../../../client/wire/routes/actions.ts";
import type { ServerContext } from "../../context.ts";
import { internal, notFound, unprocessable } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";
import { parseInput } from "../validate.ts";
import { createNotificationApi } from "../../notifications/api.ts";
import {
  actionOutcomeSchema,
  describeAction,
  type ActionRegistry,
  type ActionResponse,
  type ActionScope,
} from "../../actions/registry.ts";

export function registerActionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const registry = ctx.actions;

  serveRoute(app, applicationActionsRoute, () => ({ actions: registry.list("application").map(describeAction) }));

  serveRoute(app, sessionActionsRoute, ({ params }) => {
    ctx.sessions.get(params.session_id);
    return { actions: registry.list("session").map(describeAction) };
  });

  serveRoute(app, invokeApplicationActionRoute, ({ params, body }) =>
    invoke(ctx, registry, "application", params.name, body.input, undefined),
  );

  serveRoute(app, invokeSessionActionRoute, ({ params: { session_id, name }, body }) => {
    ctx.sessions.get(session_id);
    return invoke(ctx, registry, "session", name, body.input, session_id);
  });
}

async function invoke(
  ctx: ServerContext,
  registry: ActionRegistry,
  scope: ActionScope,
  name: string,
  rawInput: unknown,
  sessionId: string | undefined,
): Promise<ActionResponse> {
  const action = registry.get(scope, name);
  if (!action) throw notFound("action_not_found", `no ${scope} action "${name}"`);
  const input = action.input ? parseInput(action.input, rawInput, "body") : rawInput;
  let returned: unknown;
  try {
    returned = await action.run(input, {
      plugin: action.plugin,
      scope,
      ...(sessionId !== undefined ? { session_id: sessionId } : {}),
      notifications: createNotificationApi(ctx.notifications, action.plugin),
    });
  } catch (error) {
    throw unprocessable(
      "action_failed",
      `action "${name}" failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const outcome = actionOutcomeSchema.safeParse(returned ?? {});
  if (!outcome.success) {
    const details = outcome.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
    throw internal("invalid_action_result", `action "${name}" answered with an invalid result`, details);
  }
  const { result, display, ui_effects } = outcome.data;
  return {
    action: name,
    scope,
    // Direct action responses default to session ownership when they carry a session_id.
    ownership: sessionId !== undefined ? "session" : "application",
    ...(sessionId !== undefined ? { session_id: sessionId } : {}),
    ...(result !== undefined ? { result } : {}),
    // Direct action responses without a presentation default to modal.
    ...(display !== undefined ? { display: { ...display, presentation: display.presentation ?? "modal" } } : {}),
    ...(ui_effects !== undefined ? { ui_effects } : {}),
  };
}
