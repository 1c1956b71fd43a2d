// Messages and sessions as they cross the wire. role, content and metadata are fixed by the outside contract; the rest is ours (docs/sessions.md).
import { z } from "zod";
import { lazySchema, onFirstUse } from "./built-on-first-use.ts";
import { headOf } from "./whole-characters.ts";

export const roleSchema = z.enum(["user", "assistant", "system", "tool"]);
export type Role = z.infer<typeof roleSchema>;

/** Open metadata: provider-specific fields (tool_calls, reasoning, usage, ...) ride along untouched. */
export const metadataSchema = lazySchema(() => z.record(z.string(), z.unknown()));

/**
 * A message. `version`/`versions` (1-based) sit on every message of a turn (a user message and the replies up to the
 * next user message) that has more than one version: regenerate and edit-and-resend keep the replaced branch. The
 * turn's user message also holds `other_versions`: each hidden branch from that turn to its end, as it was left
 * (docs/sessions.md "Versions").
 */
export interface Message {
  role: Role;
  content: string;
  metadata?: Record<string, unknown> | undefined;
  version?: number | undefined;
  versions?: number | undefined;
  other_versions?: HiddenVersion[] | undefined;
}

/** A version of a turn that is not shown: its messages from the turn's user message to the end of that branch. */
export interface HiddenVersion {
  version: number;
  messages: Message[];
}

const versionNumberSchema = z.number().int().positive();

export const messageSchema: z.ZodType<Message> = z.object({
  role: roleSchema,
  content: z.string(),
  metadata: metadataSchema.optional(),
  version: versionNumberSchema.optional(),
  versions: versionNumberSchema.optional(),
  get other_versions() {
    return z.array(hiddenVersionSchema).optional();
  },
});

export const hiddenVersionSchema: z.ZodType<HiddenVersion> = z.object({
  version: versionNumberSchema,
  get messages() {
    return z.array(messageSchema);
  },
});

/** One person a chat is shared with, and what they may do (docs/people.md "Sharing"). */
export const sessionShareSchema = lazySchema(() =>
  z.object({ person_id: z.string(), access: z.enum(["read", "write"]) }),
);
export type SessionShare = z.infer<typeof sessionShareSchema>;

/**
 * Who owns a chat and whom it is shared with, as the caller's person sees it (docs/people.md "Visibility"): every
 * session an HTTP answer carries has them; session events and servers without people leave them out.
 */
export const sessionViewFields = onFirstUse(() => ({
  owner: z.string().optional(),
  owner_name: z.string().optional(),
  shares: z.array(sessionShareSchema).optional(),
}));

export const sessionSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    agent_id: z.string(),
    /** Every save is a new immutable version; this counts them from 1. */
    version: z.number().int().positive(),
    created_at: z.string(),
    updated_at: z.string(),
    source_session_id: z.string().optional(),
    /** The name given with PATCH /sessions/{id}; absent until renamed. Show sessionTitle(session). */
    title: z.string().optional(),
    /** Overrides the agent's model for this session's requests (PATCH /sessions/{id}). */
    model: z.string().optional(),
    /** Left out of GET /sessions unless asked for (`archived=only|include`); absent: false. */
    archived: z.boolean().optional(),
    /** Listed before the others; absent: false. */
    pinned: z.boolean().optional(),
    /** Merged into every request of the session, under a send's own (PATCH /sessions/{id}). */
    request_options: z.record(z.string(), z.unknown()).optional(),
    messages: z.array(messageSchema),
    metadata: metadataSchema,
    ...sessionViewFields(),
  }),
);
export type Session = z.infer<typeof sessionSchema>;

/** A session read in pages (GET /sessions/{id}?messages_limit&messages_before): a part of its shown messages. */
export const pagedSessionSchema = lazySchema(() =>
  sessionSchema.unwrap().extend({
    /** How many shown messages the chat has. */
    messages_total: z.number().int().nonnegative(),
    /** The index of the first message given (0: the page reaches the chat's start). */
    messages_start: z.number().int().nonnegative(),
  }),
);
export type PagedSession = z.infer<typeof pagedSessionSchema>;

/** How many characters of the first user message make a title. */
export const DERIVED_TITLE_LENGTH = 80;

/**
 * The title to show: the name given with PATCH /sessions/{id}, else the first user message (whitespace collapsed,
 * cut at DERIVED_TITLE_LENGTH characters with an ellipsis), else "" (no user message yet). The server's session
 * summaries and apps use this one rule.
 */
export function sessionTitle(session: Pick<Session, "title" | "messages">): string {
  if (session.title !== undefined) return session.title;
  const first = session.messages.find((message) => message.role === "user" && message.content.trim() !== "");
  if (!first) return "";
  // Only the head matters: a 100 kB first message costs no more than a short one.
  const text = headOf(first.content, DERIVED_TITLE_LENGTH * 4)
    .replace(/\s+/g, " ")
    .trim();
  return clipTitle(text, DERIVED_TITLE_LENGTH);
}

/** `text` in at most `max` characters (code points): cut, with an ellipsis for the rest, when longer. */
export function clipTitle(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join("")
        .trimEnd()}…`;
}
