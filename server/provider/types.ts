// The adapter's interface to the request runner: what goes in (ProviderRequest) and what comes out (a stream of
// ProviderDelta ending in `done`). Input shapes are zod schemas because the runner passes plugin tool definitions
// and user-supplied request options through them.
import { z } from "zod";
import type { Message } from "../../client/wire/messages.ts";
import type { Clock } from "../clock.ts";

/** A tool as plugins register it: JSON-schema parameters. Sent as `{type: "function", function: {...}}`. */
export const toolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

export interface ProviderRequest {
  /** The conversation as stored (client/wire Message). The adapter converts it and inlines images. */
  messages: Message[];
  tools?: ToolDefinition[];
  stream: boolean;
  /** Per-request options (the composer's rich_ui controls); merged over settings.request_options. */
  request_options?: Record<string, unknown>;
  /** Replaces settings.model for this request (a session's model override). */
  model?: string;
  /** Needed to read `asset` attachments through deps.readAsset. */
  session_id?: string;
  signal: AbortSignal;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface AssistantMessage {
  role: "assistant";
  content: string;
  metadata: Record<string, unknown>;
}

export type ReasoningField = "reasoning" | "reasoning_content";

export type ProviderDelta =
  /** Visible text; append. */
  | { type: "content"; text: string }
  /** Reasoning text under the field the backend used; append. */
  | { type: "reasoning"; field: ReasoningField; text: string }
  /** Progress of one tool call: `index` is the call's position in the final metadata.tool_calls. */
  | { type: "tool_call"; index: number; id?: string; name?: string; arguments_delta: string }
  /** A pre-stream retry is about to wait `delay_ms` (attempt counts from 0, shared by 429, statuses and timeouts). */
  | { type: "retry"; attempt: number; reason: "rate_limit" | "status" | "timeout"; status?: number; delay_ms: number }
  /**
   * The stream broke and the full request is re-issued. Discard partial reasoning and tool progress; in
   * `aggressive` mode visible content may already have been shown and will be replayed from the start.
   */
  | { type: "recovery"; attempt: number; mode: "early_only" | "aggressive"; content_emitted: boolean; reason: string }
  /** Always last: the complete assistant message of the attempt that succeeded. */
  | { type: "done"; message: AssistantMessage; finish_reason: string | null };

export interface ProviderLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ProviderAsset {
  media_type: string;
  bytes: Uint8Array;
}

export interface ProviderDeps {
  clock: Clock;
  /** Reads a session-owned uploaded image; required only when messages carry `asset` attachments. */
  readAsset?: (sessionId: string, assetId: string) => Promise<ProviderAsset>;
  log?: ProviderLog;
}

export interface DiscoveredModel {
  id: string;
  owned_by?: string;
}

export interface ModelDiscovery {
  models: DiscoveredModel[];
  /** Set when discovery failed; a custom model id is still accepted. */
  error?: string;
}
