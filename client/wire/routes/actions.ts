// Action routes (docs/runner.md "Plugins"): list and invoke application actions and session actions. The body is
// `{input?}`, checked against the action's own schema; the answer is an ActionResponse (a one-shot result; nothing is
// stored). An action that throws is 422 action_failed; one whose answer breaks the display/ui_effects rules is 500
// invalid_action_result (the plugin's defect, not the caller's).
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { sessionParams } from "./params.ts";
import { defineRoute } from "./route.ts";

const actionList = lazySchema(() => z.looseObject({ actions: z.array(z.looseObject({ name: z.string() })) }));
const actionResponse = lazySchema(() =>
  z.looseObject({
    action: z.string(),
    scope: z.enum(["application", "session"]),
    ownership: z.enum(["application", "session"]),
    session_id: z.string().optional(),
    result: z.unknown().optional(),
    display: z.unknown().optional(),
    ui_effects: z.unknown().optional(),
  }),
);
const invokeBody = lazySchema(() => z.object({ input: z.unknown().optional() }).strict().default({}));
const invokeErrors = ["action_not_found", "action_failed", "invalid_action_result"] as const;

export const applicationActionsRoute = defineRoute("GET", "/application/actions", () => ({
  answer: actionList,
}));

export const sessionActionsRoute = defineRoute("GET", "/sessions/:session_id/actions", () => ({
  params: sessionParams,
  answer: actionList,
  errors: ["session_not_found"],
}));

export const invokeApplicationActionRoute = defineRoute("POST", "/application/actions/:name", () => ({
  params: z.object({ name: z.string().min(1) }).strict(),
  body: invokeBody,
  answer: actionResponse,
  errors: invokeErrors,
}));

export const invokeSessionActionRoute = defineRoute("POST", "/sessions/:session_id/actions/:name", () => ({
  params: sessionParams
    .unwrap()
    .extend({ name: z.string().min(1) })
    .strict(),
  body: invokeBody,
  answer: actionResponse,
  errors: [...invokeErrors, "session_not_found"],
}));
