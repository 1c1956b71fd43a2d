// What a tool is, as plugins register it (docs/runner.md "Plugins"): `api.tools.register({name, description,
// parameters, run})`. `run(args, ctx)` gets arguments already validated against `parameters` and answers with
// a string, a result object, any JSON value, or an async iterable of parts (streamed as `tool_partial`);
// `ctx.emit(part)` streams a part too.
import { z } from "zod";
import type { NotificationRecord } from "../../client/wire/notification.ts";

export interface ToolRunContext {
  session_id: string;
  request_id: string;
  tool_call_id: string;
  /** The call's position among all tool calls of its request, counted from 0 across rounds. */
  call_index: number;
  /** Aborted when the request is cancelled (or the server shuts down): stop work and return or throw. */
  signal: AbortSignal;
  /** Streams one part of progress (a `tool_partial` event when the request streams). */
  emit(part: unknown): void;
  /** The tool-facing notification sink, bound to this session and request: the record, or null; never throws. */
  notify(input: unknown): Promise<NotificationRecord | null>;
}

export type ToolRun = (args: Record<string, unknown>, ctx: ToolRunContext) => unknown;

/** A result object a tool may return; any other value is its content (JSON-encoded unless a string). */
export const toolResultSchema = z
  .object({
    content: z.string(),
    /** Renderers prefer display.content when display.type is text (docs/runner.md "Tool loop"). */
    display: z.object({ type: z.literal("text"), content: z.string() }).optional(),
    /** Tool-specific extras merged into the tool message's metadata. */
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ToolResult = z.infer<typeof toolResultSchema>;

const jsonSchemaObject = z.record(z.string(), z.unknown());

export const toolInputSchema = z
  .object({
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9_-]{1,64}$/,
        "a tool name is 1-64 letters, digits, '_' or '-' (what chat-completions backends accept)",
      ),
    description: z.string().optional(),
    parameters: jsonSchemaObject.default({ type: "object", properties: {} }),
    run: z.custom<ToolRun>((v) => typeof v === "function", "run must be a function"),
  })
  .strict();
export type ToolInput = z.input<typeof toolInputSchema>;

export interface RegisteredTool {
  plugin: string;
  name: string;
  description: string | undefined;
  parameters: Record<string, unknown>;
  /** The parameters schema as zod (z.fromJSONSchema), built once at registration. */
  validator: z.ZodType;
  run: ToolRun;
}
