// The `api.actions` part of a plugin's setup(api) (docs/runner.md "Plugins"), as a factory the plugin loader
// (server/plugins/loader.ts) calls per plugin: what a plugin registers is tagged with its name.
import type { ActionDefinition, ActionRegistry } from "./registry.ts";

export interface ActionApi {
  register(definition: ActionDefinition): void;
}

export function createActionApi(registry: ActionRegistry, pluginName: string): ActionApi {
  return { register: (definition) => registry.register(pluginName, definition) };
}
