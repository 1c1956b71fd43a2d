// The provider adapter's public surface: what the request runner, the routes and the config import.
export { createProvider, type CreateProviderDeps, type Provider } from "./provider.ts";
export { ProviderError, type ProviderErrorCode } from "./errors.ts";
export { toolArgumentsError } from "./tool-calls.ts";
export { toProviderMessages, type NativeMessage } from "./messages.ts";
export { estimateCachedTokens } from "./cache-estimate.ts";
export { usageMetadata, formatTokens, formatCost } from "./usage.ts";
export { discoverModels } from "./discovery.ts";
export { PacingRegistry, sharedPacing } from "./pacing.ts";
export {
  selectEndpoint,
  currentEndpointLabel,
  normalizeBaseUrl,
  providerSettingsSchema,
  type ProviderSettings,
  type ProviderSettingsInput,
} from "./settings.ts";
export type {
  AssistantMessage,
  ModelDiscovery,
  ProviderDelta,
  ProviderDeps,
  ProviderLog,
  ProviderRequest,
  ToolCall,
  ToolDefinition,
} from "./types.ts";
