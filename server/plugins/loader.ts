// Loads the config's `plugins` (docs/runner.md "Plugins"): each path, resolved against the config file's folder, is
// an ES module whose default export is `{name, setup(api)}`. setup receives `api.tools` (this registry) and,
// from the notifications part of the server, `api.notifications` and `api.actions`. Any failure is a config
// error naming `plugins.<index>`, so a broken plugin stops the start with one line instead of a half-loaded set.
import type { FastifyBaseLogger } from "fastify";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createActionApi, type ActionApi } from "../actions/plugin-api.ts";
import type { ActionRegistry } from "../actions/registry.ts";
import { ConfigError } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { createNotificationApi, type NotificationApi } from "../notifications/api.ts";
import type { NotificationService } from "../notifications/notification-service.ts";
import { ToolRegistry } from "./tool-registry.ts";
import type { ToolInput } from "./tools.ts";

/** The `api` a plugin's setup receives; what it registers or publishes is tagged with the plugin's name. */
export interface PluginApi {
  tools: { register(tool: ToolInput): void };
  notifications: NotificationApi;
  actions: ActionApi;
}

const pluginSchema = z.looseObject({
  name: z.string().min(1),
  setup: z.custom<(api: PluginApi) => unknown>((v) => typeof v === "function", "setup must be a function"),
});

export interface PluginLoaderParts {
  notifications: NotificationService;
  actions: ActionRegistry;
  /** config.plugins: module paths, resolved against configDir. */
  paths: readonly string[];
  /** The config file's folder. */
  configDir: string;
  /** config.agents: a `tools` entry no plugin registered is worth a warning. */
  agents: Config["agents"];
  log: Pick<FastifyBaseLogger, "info" | "warn">;
}

/** The config's plugins and the tools they register, loaded once (createRuntime awaits it when the app is ready). */
export class PluginLoader {
  readonly tools = new ToolRegistry();
  private loading: Promise<LoadedPlugin[]> | undefined;

  constructor(private readonly parts: PluginLoaderParts) {}

  load(): Promise<LoadedPlugin[]> {
    return (this.loading ??= loadPlugins(this.parts, this.tools));
  }
}

export interface LoadedPlugin {
  name: string;
  path: string;
  tools: string[];
}

async function loadPlugins(ctx: PluginLoaderParts, registry: ToolRegistry): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const names = new Set<string>();
  for (const [index, path] of ctx.paths.entries()) {
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
    throw new Error(
      `the default export must be {name, setup(api)}: ${issue.path.join(".") || "default"}: ${issue.message}`,
    );
  }
  return parsed.data;
}

function pluginApi(ctx: PluginLoaderParts, name: string, registry: ToolRegistry, tools: string[]): PluginApi {
  return {
    tools: {
      register: (tool) => {
        tools.push(registry.register(name, tool).name);
      },
    },
    notifications: createNotificationApi(ctx.notifications, name),
    actions: createActionApi(ctx.actions, name),
  };
}

/** An agent's `tools` naming a tool no plugin registered is likely a typo: say so once at start. */
function warnUnknownAgentTools(ctx: PluginLoaderParts, registry: ToolRegistry, loaded: LoadedPlugin[]): void {
  for (const [agentId, agent] of Object.entries(ctx.agents ?? {})) {
    // mcp__ names belong to MCP servers (server/mcp/), which report their own tools.
    const missing = (agent.tools ?? []).filter((name) => !name.startsWith("mcp__") && !registry.get(name));
    if (missing.length > 0)
      ctx.log.warn(
        { agent: agentId, missing, plugins: loaded.map((p) => p.name) },
        "agent names tools no plugin registered",
      );
  }
}
