// Conversation messages (client/wire Message: role, content, metadata) to provider-native request messages.
// What the provider produced is written back so a tool loop's follow-up request carries it: tool_calls and the
// reasoning fields on assistant messages, tool_call_id on tool messages, image parts on user messages. Provider-
// specific fields (metadata.provider_fields, and extras kept on each tool call) go back as they came, as reasoning
// does: Gemini requires each call's `extra_content.google.thought_signature` on the next request of the loop.
import { z } from "zod";
import type { Message } from "../../client/wire/messages.ts";
import { ProviderError } from "./errors.ts";
import { imageAttachments, imagePart, parseAttachments, type ImageContext, type ImagePart } from "./images.ts";
import type { ToolCall } from "./types.ts";

export type NativeContent = string | null | Array<{ type: "text"; text: string } | ImagePart>;

export interface NativeMessage {
  role: Message["role"];
  content: NativeContent;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning?: string;
  reasoning_content?: string;
  /** Provider-specific fields of an assistant message (metadata.provider_fields). */
  [providerField: string]: unknown;
}

/** Fields the adapter sets itself: a stored provider field of the same name never replaces them. */
const OWN_FIELDS = new Set([
  "role",
  "content",
  "tool_calls",
  "tool_call_id",
  "reasoning",
  "reasoning_content",
  "__proto__",
]);

const providerFieldsSchema = z.record(z.string(), z.unknown());

export async function toProviderMessages(messages: Message[], ctx: ImageContext): Promise<NativeMessage[]> {
  const out: NativeMessage[] = [];
  for (let i = 0; i < messages.length; i++) out.push(await toNative(messages[i]!, i, ctx));
  return out;
}

async function toNative(message: Message, index: number, ctx: ImageContext): Promise<NativeMessage> {
  const meta = message.metadata ?? {};
  switch (message.role) {
    case "assistant":
      return assistantMessage(message.content, meta, index);
    case "tool": {
      const native: NativeMessage = { role: "tool", content: message.content };
      if (typeof meta.tool_call_id === "string") native.tool_call_id = meta.tool_call_id;
      return native;
    }
    case "user": {
      const attachments = imageAttachments(parseAttachments(meta.attachments, index));
      if (attachments.length === 0) return { role: "user", content: message.content };
      const parts: Exclude<NativeContent, string | null> = [];
      if (message.content !== "") parts.push({ type: "text", text: message.content });
      for (const attachment of attachments) parts.push(await imagePart(attachment, ctx));
      return { role: "user", content: parts };
    }
    case "system":
      return { role: "system", content: message.content };
  }
}

/**
 * Stored tool calls as the adapter wrote them, or as a client posted them; provider-specific extras ride along.
 * A stored call may name its id `tool_call_id` (docs/provider.md P27): a call with only `tool_call_id` is sent with it as `id`, the field
 * chat-completions servers read.
 */
const storedToolCallsSchema = z.array(
  z
    .looseObject({
      id: z.string().optional(),
      tool_call_id: z.string().optional(),
      type: z.literal("function").default("function"),
      function: z.looseObject({ name: z.string(), arguments: z.string() }),
    })
    .refine((call) => call.id !== undefined || call.tool_call_id !== undefined, {
      message: "needs an id (or tool_call_id)",
      path: ["id"],
    })
    .transform(({ tool_call_id, ...call }) => ({ ...call, id: (call.id ?? tool_call_id)! })),
);

function assistantMessage(content: string, meta: Record<string, unknown>, index: number): NativeMessage {
  let toolCalls: ToolCall[] | undefined;
  if (meta.tool_calls !== undefined) {
    const parsed = storedToolCallsSchema.safeParse(meta.tool_calls);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ProviderError(
        "invalid_request",
        `messages[${index}].metadata.tool_calls.${issue.path.join(".")}: ${issue.message}`,
      );
    }
    if (parsed.data.length > 0) toolCalls = parsed.data;
  }
  // With tool calls and no text, content is null: several servers refuse "" next to tool_calls.
  const native: NativeMessage = { role: "assistant", content: toolCalls && content === "" ? null : content };
  if (toolCalls) native.tool_calls = toolCalls;
  if (typeof meta.reasoning === "string") native.reasoning = meta.reasoning;
  if (typeof meta.reasoning_content === "string") native.reasoning_content = meta.reasoning_content;
  if (meta.provider_fields !== undefined) writeProviderFields(native, meta.provider_fields, index);
  return native;
}

function writeProviderFields(native: NativeMessage, stored: unknown, index: number): void {
  const parsed = providerFieldsSchema.safeParse(stored);
  if (!parsed.success)
    throw new ProviderError(
      "invalid_request",
      `messages[${index}].metadata.provider_fields: must be an object of provider-specific message fields`,
    );
  for (const [field, value] of Object.entries(parsed.data)) {
    if (!OWN_FIELDS.has(field)) native[field] = value;
  }
}
