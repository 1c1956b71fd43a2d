// Action routes (docs/runner.md "Plugins"): list and invoke application actions and session actions. The body is
// `{input?}`, checked against the action's own schema; the answer is an ActionResponse (a one-shot result; nothing is
// stored). An action that throws is 422 action_failed; one whose answer breaks the display/ui_effects rules is 500
// invalid_action_result (the plugin's defect, not the caller's).
import { z } from "zod";
import { sessionParams } from "./params.ts";
import { defineRoute } from "./route.ts";

const actionList = z.looseObject({ actions: z.array(z.looseObject({ name: z.string() })) });
const actionResponse = z.looseObject({
  action: z.string(),
  scope: z.enum(["application", "session"]),
  ownership: z.enum(["application", "session"]),
  session_id: z.string().optional(),
  result: z.unknown().optional(),
  display: z.unknown().optional(),
  ui_effects: z.unknown().optional(),
});
const invokeBody = z.object({ input: z.unknown().optional() }).strict().default({});
const invokeErrors = ["action_not_found", "action_failed", "invalid_action_result"] as const;

export const applicationActionsRoute = defineRoute({
  method: "GET",
  path: "/application/actions",
  answer: actionList,
  status: 200,
  errors: [],
});

export const sessionActionsRoute = defineRoute({
  method: "GET",
  path: "/sessions/:session_id/actions",
  params: sessionParams,
  answer: actionList,
  status: 200,
  errors: ["session_not_found"],
});

export const invokeApplicationActionRoute = defineRoute({
  method: "POST",
  path: "/application/actions/:name",
  params: z.object({ name: z.string().min(1) }).strict(),
  body: invokeBody,
  answer: actionResponse,
  status: 200,
  errors: invokeErrors,
});

export const invokeSessionActionRoute = defineRoute({
  method: "POST",
  path: "/sessions/:session_id/actions/:name",
  params: sessionParams.extend({ name: z.string().min(1) }).strict(),
  body: invokeBody,
  answer: actionResponse,
  status: 200,
  errors: [...invokeErrors, "session_not_found"],
});
