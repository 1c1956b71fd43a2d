// Loads the config's `plugins` (DESIGN.md "Plugins"): each path, resolved against the config file's folder, is
// an ES module whose default export is `{name, setup(api)}`. setup receives `api.tools` (this registry) and,
// from the notifications part of the server, `api.notifications` and `api.actions`. Any failure is a config
// error naming `plugins.<index>`, so a broken plugin stops the start with one line instead of a half-loaded set.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createNotificationPluginApi, type NotificationPluginApi } from "../actions/plugin-api.ts";
import { ConfigError } from "../config/load.ts";
import type { ServerContext } from "../context.ts";
import type { ToolRegistry } from "./tool-registry.ts";
import type { ToolInput } from "./tools.ts";

export interface PluginApi extends Partial<NotificationPluginApi> {
  tools: { register(tool: ToolInput): void };
}

const pluginSchema = z.looseObject({
  name: z.string().min(1),
  setup: z.custom<(api: PluginApi) => unknown>((v) => typeof v === "function", "setup must be a function"),
});

export type PluginContext = Pick<ServerContext, "config" | "configDir" | "notifications" | "actions" | "log">;

export interface LoadedPlugin {
  name: string;
  path: string;
  tools: string[];
}

export async function loadPlugins(ctx: PluginContext, registry: ToolRegistry): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const names = new Set<string>();
  for (const [index, path] of ctx.config.plugins.entries()) {
    const file = resolve(ctx.configDir, path);
    try {
      const plugin = await importPlugin(file);
      if (names.has(plugin.name)) throw new Error(`a plugin named "${plugin.name}" is already loaded`);
      names.add(plugin.name);
      const tools: string[] = [];
      await plugin.setup(pluginApi(ctx, plugin.name, registry, tools));
      loaded.push({ name: plugin.name, path: file, tools });
      ctx.log.info({ plugin: plugin.name, path: file, tools }, "plugin loaded");
    } catch (error) {
      throw new ConfigError(`config error at plugins.${index}: ${file}: ${(error as Error).message}`);
    }
  }
  warnUnknownAgentTools(ctx, registry, loaded);
  return loaded;
}

async function importPlugin(file: string) {
  const module: unknown = await import(pathToFileURL(file).href);
  const parsed = pluginSchema.safeParse((module as { default?: unknown }).default);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the default export must be {name, setup(api)}: ${issue.path.join(".") || "default"}: ${issue.message}`);
  }
  return parsed.data;
}

function pluginApi(ctx: PluginContext, name: string, registry: ToolRegistry, tools: string[]): PluginApi {
  const api: PluginApi = {
    tools: {
      register: (tool) => {
        tools.push(registry.register(name, tool).name);
      },
    },
  };
  // Present whenever createRuntime built the notification hub and action registry (it always does).
  if (ctx.notifications && ctx.actions) Object.assign(api, createNotificationPluginApi(ctx, name));
  return api;
}

/** An agent's `tools` naming a tool no plugin registered is likely a typo: say so once at start. */
function warnUnknownAgentTools(ctx: PluginContext, registry: ToolRegistry, loaded: LoadedPlugin[]): void {
  for (const [agentId, agent] of Object.entries(ctx.config.agents ?? {})) {
    const missing = (agent.tools ?? []).filter((name) => !registry.get(name));
    if (missing.length > 0) ctx.log.warn({ agent: agentId, missing, plugins: loaded.map((p) => p.name) }, "agent names tools no plugin registered");
  }
}
