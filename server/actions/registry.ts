// Application and session actions registered by plugins (`api.actions.register`). An action's answer may
// carry a `display` and `ui_effects`, validated like a notification's; it is a one-shot result in its
// initiating context, never stored as a notification (docs/notifications.md "Actions").
import { z } from "zod";
import { displaySchema, presentationSchema, uiEffectsSchema } from "../../client/wire/notification.ts";
import type { NotificationApi } from "../notifications/api.ts";

export const actionScopeSchema = z.enum(["application", "session"]);
export type ActionScope = z.infer<typeof actionScopeSchema>;

export interface ActionRunContext {
  plugin: string;
  scope: ActionScope;
  /** Set for session actions. */
  session_id?: string;
  /** The invoking plugin's own notification API. */
  notifications: NotificationApi;
}

/** What `run` may return (or nothing): a result, and optionally a display and UI effects. */
export const actionOutcomeSchema = z
  .object({
    result: z.json().optional(),
    display: z.looseObject({ presentation: presentationSchema.optional() }).optional(),
    ui_effects: uiEffectsSchema.optional(),
  })
  .strict();
export type ActionOutcome = z.input<typeof actionOutcomeSchema>;

const jsonSchemaObject = z.record(z.string(), z.unknown());
const functionSchema = z.custom<(input: unknown, ctx: ActionRunContext) => unknown>(
  (v) => typeof v === "function",
  "run must be a function",
);
const zodSchema = z.custom<z.ZodType>(
  (v) => v instanceof z.ZodType,
  "input must be a zod schema or a JSON schema object",
);

export const actionDefinitionSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "an action name is 1-64 letters, digits, '_', '.' or '-'"),
    scope: actionScopeSchema,
    description: z.string().optional(),
    input: z.union([zodSchema, jsonSchemaObject]).optional(),
    run: functionSchema,
  })
  .strict();
export type ActionDefinition = z.input<typeof actionDefinitionSchema>;

/** The answer of POST .../actions/{name}; documented in docs/notifications.md "Actions". */
export const actionResponseSchema = z.object({
  action: z.string(),
  scope: actionScopeSchema,
  /** Session actions answer with session ownership: the client shows the display in that session. */
  ownership: z.enum(["application", "session"]),
  session_id: z.string().optional(),
  result: z.json().optional(),
  display: displaySchema.optional(),
  ui_effects: uiEffectsSchema.optional(),
});
export type ActionResponse = z.infer<typeof actionResponseSchema>;

export interface RegisteredAction {
  plugin: string;
  name: string;
  scope: ActionScope;
  description?: string;
  input?: z.ZodType;
  run: (input: unknown, ctx: ActionRunContext) => unknown;
}

export class ActionRegistry {
  private readonly actions = new Map<string, RegisteredAction>();

  /** Registers one action; a second action with the same scope and name is refused. */
  register(plugin: string, definition: ActionDefinition): void {
    const parsed = actionDefinitionSchema.parse(definition);
    const id = `${parsed.scope}:${parsed.name}`;
    if (this.actions.has(id)) throw new Error(`a ${parsed.scope} action named "${parsed.name}" is already registered`);
    const input =
      parsed.input === undefined
        ? undefined
        : parsed.input instanceof z.ZodType
          ? parsed.input
          : z.fromJSONSchema(parsed.input as z.core.JSONSchema.JSONSchema);
    this.actions.set(id, {
      plugin,
      name: parsed.name,
      scope: parsed.scope,
      ...(parsed.description !== undefined ? { description: parsed.description } : {}),
      ...(input ? { input } : {}),
      run: parsed.run,
    });
  }

  get(scope: ActionScope, name: string): RegisteredAction | undefined {
    return this.actions.get(`${scope}:${name}`);
  }

  list(scope: ActionScope): RegisteredAction[] {
    return [...this.actions.values()].filter((a) => a.scope === scope);
  }
}

/** How an action is described to clients: its input as JSON schema when it has one. */
export function describeAction(action: RegisteredAction) {
  return {
    name: action.name,
    scope: action.scope,
    plugin: action.plugin,
    ...(action.description !== undefined ? { description: action.description } : {}),
    ...(action.input ? { input_schema: z.toJSONSchema(action.input, { unrepresentable: "any" }) } : {}),
  };
}
