// The `api.notifications` and `api.actions` parts of a plugin's setup(api), as factories the plugin loader
// (server/plugins, written separately) calls per plugin; and `setupPluginForTests`, which runs a plugin
// object's setup with just these parts so tests need no module files.
import { createNotificationApi, type NotificationApi } from "../notifications/api.ts";
import type { NotificationHub } from "../notifications/hub.ts";
import type { ActionDefinition, ActionRegistry } from "./registry.ts";

export interface ActionApi {
  register(definition: ActionDefinition): void;
}

export function createActionApi(registry: ActionRegistry, pluginName: string): ActionApi {
  return { register: (definition) => registry.register(pluginName, definition) };
}

export interface NotificationPluginApi {
  notifications: NotificationApi;
  actions: ActionApi;
}

/** What the notification part of a plugin's api is built from: the runtime's hub and action registry. */
export interface NotificationPluginParts {
  notifications: NotificationHub;
  actions: ActionRegistry;
}

export function createNotificationPluginApi(parts: NotificationPluginParts, pluginName: string): NotificationPluginApi {
  return { notifications: createNotificationApi(parts.notifications, pluginName), actions: createActionApi(parts.actions, pluginName) };
}

/** Test-only: registers a plugin object directly, with the notification and action parts of the api. */
export async function setupPluginForTests(
  ctx: NotificationPluginParts,
  plugin: { name: string; setup(api: NotificationPluginApi): unknown },
): Promise<NotificationPluginApi> {
  const api = createNotificationPluginApi(ctx, plugin.name);
  await plugin.setup(api);
  return api;
}
