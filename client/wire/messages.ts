// Messages and sessions as they cross the wire. SPEC.md fixes role, content and metadata; the rest is ours.
import { z } from "zod";

export const roleSchema = z.enum(["user", "assistant", "system", "tool"]);
export type Role = z.infer<typeof roleSchema>;

/** Open metadata: provider-specific fields (tool_calls, reasoning, usage, ...) ride along untouched. */
export const metadataSchema = z.record(z.string(), z.unknown());

export const messageSchema = z.object({
  role: roleSchema,
  content: z.string(),
  metadata: metadataSchema.optional(),
});
export type Message = z.infer<typeof messageSchema>;

export const sessionSchema = z.looseObject({
  id: z.string(),
  agent_id: z.string(),
  /** Every save is a new immutable version; this counts them from 1. */
  version: z.number().int().positive(),
  created_at: z.string(),
  updated_at: z.string(),
  source_session_id: z.string().optional(),
  /** The first user message (trimmed, at most 80 characters) until renamed; then the chosen name. */
  title: z.string().optional(),
  /** True once renamed: the title no longer follows the first user message. */
  title_renamed: z.boolean().optional(),
  /** Overrides the agent's model for this session's requests (PATCH /sessions/{id}). */
  model: z.string().optional(),
  messages: z.array(messageSchema),
  metadata: metadataSchema,
});
export type Session = z.infer<typeof sessionSchema>;
