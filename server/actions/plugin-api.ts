// The `api.notifications` and `api.actions` parts of a plugin's setup(api), as factories the plugin loader
// (server/plugins, written separately) calls per plugin; and `setupPluginForTests`, which runs a plugin
// object's setup with just these parts so tests need no module files.
import type { ServerContext } from "../context.ts";
import { createNotificationApi, type NotificationApi } from "../notifications/api.ts";
import type { ActionDefinition } from "./registry.ts";
import { requireActions } from "./routes.ts";

export interface ActionApi {
  register(definition: ActionDefinition): void;
}

export function createActionApi(ctx: Pick<ServerContext, "actions">, pluginName: string): ActionApi {
  const registry = requireActions(ctx);
  return { register: (definition) => registry.register(pluginName, definition) };
}

export interface NotificationPluginApi {
  notifications: NotificationApi;
  actions: ActionApi;
}

export function createNotificationPluginApi(ctx: Pick<ServerContext, "actions" | "notifications">, pluginName: string): NotificationPluginApi {
  return { notifications: createNotificationApi(ctx, pluginName), actions: createActionApi(ctx, pluginName) };
}

/** Test-only: registers a plugin object directly, with the notification and action parts of the api. */
export async function setupPluginForTests(
  ctx: Pick<ServerContext, "actions" | "notifications">,
  plugin: { name: string; setup(api: NotificationPluginApi): unknown },
): Promise<NotificationPluginApi> {
  const api = createNotificationPluginApi(ctx, plugin.name);
  await plugin.setup(api);
  return api;
}
