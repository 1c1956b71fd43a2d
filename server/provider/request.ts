// Builds the outbound POST <base_url>/chat/completions: URL, headers and payload (docs/provider.md "Provider settings").
import { ProviderError } from "./errors.ts";
import type { NativeMessage } from "./messages.ts";
import {
  RESERVED_REQUEST_FIELDS,
  describeOptionValue,
  isAllowedOption,
  normalizeBaseUrl,
  type ProviderSettings,
} from "./settings.ts";
import type { ToolDefinition } from "./types.ts";

export function chatCompletionsUrl(settings: ProviderSettings): string {
  return `${normalizeBaseUrl(settings.base_url)}/chat/completions`;
}

export function modelsUrl(baseUrl: string): string {
  return `${normalizeBaseUrl(baseUrl)}/models`;
}

/** The bearer token only when api_key is set: local servers get no Authorization header at all. */
export function requestHeaders(settings: ProviderSettings, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "accept": stream ? "text/event-stream" : "application/json",
  };
  if (settings.api_key !== undefined) headers.authorization = `Bearer ${settings.api_key}`;
  return headers;
}

/**
 * Per-request options over configured ones. A key with a request_options_ui descriptor must be one of its
 * options (a string, never coerced); the adapter's own fields cannot be replaced. Refusals are invalid_request
 * ProviderErrors naming `request_options.<key>` (the send route answers them 400 at body.request_options).
 */
export function mergeRequestOptions(
  settings: ProviderSettings,
  perRequest: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const merged = { ...settings.request_options, ...perRequest };
  if (perRequest === undefined) return merged;
  for (const key of RESERVED_REQUEST_FIELDS) {
    if (Object.hasOwn(perRequest, key))
      throw new ProviderError(
        "invalid_request",
        `request_options.${key}: "${key}" is set by the provider and cannot be a request option`,
      );
  }
  for (const [name, descriptor] of Object.entries(settings.request_options_ui)) {
    if (!Object.hasOwn(perRequest, name)) continue;
    const value = perRequest[name];
    if (value !== undefined && !isAllowedOption(descriptor, value)) {
      throw new ProviderError(
        "invalid_request",
        `request_options.${name}: must be one of the strings ${descriptor.options.join(", ")}; got ${describeOptionValue(value)}`,
      );
    }
  }
  return merged;
}

export interface PayloadInput {
  messages: NativeMessage[];
  tools: ToolDefinition[] | undefined;
  stream: boolean;
  requestOptions: Record<string, unknown>;
}

export function buildPayload(settings: ProviderSettings, input: PayloadInput): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    ...input.requestOptions,
    model: settings.model,
    messages: input.messages,
    stream: input.stream,
  };
  if (input.tools && input.tools.length > 0) {
    payload.tools = input.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.parameters ?? { type: "object", properties: {} },
      },
    }));
    if (payload.tool_choice === undefined) payload.tool_choice = "auto";
  } else {
    // tool_choice without tools is refused by most servers.
    delete payload.tool_choice;
  }
  if (input.stream && settings.include_usage_in_stream && payload.stream_options === undefined) {
    payload.stream_options = { include_usage: true };
  }
  return payload;
}
