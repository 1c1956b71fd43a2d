// Runs a plugin object's setup with the notification and action parts of the plugin api, so a suite can register
// actions without writing a module file. The loader builds the same parts (server/plugins/loader.ts).
import { createActionApi } from "../../server/actions/plugin-api.ts";
import type { ServerContext } from "../../server/context.ts";
import { createNotificationApi } from "../../server/notifications/api.ts";
import type { PluginApi } from "../../server/plugins/loader.ts";

type ActionPluginApi = Pick<PluginApi, "notifications" | "actions">;

export async function setupPlugin(
  ctx: Pick<ServerContext, "notifications" | "actions">,
  plugin: { name: string; setup(api: ActionPluginApi): unknown },
): Promise<ActionPluginApi> {
  const api = {
    notifications: createNotificationApi(ctx.notifications, plugin.name),
    actions: createActionApi(ctx.actions, plugin.name),
  };
  await plugin.setup(api);
  return api;
}
