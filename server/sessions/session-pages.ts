// Pages of the chat list and of a chat's messages (docs/sessions.md "History in pages"). The list is ordered by
// (pinned desc, updated_at desc, id desc), a total order, so one opaque cursor naming the last row given (all three
// keys) says where the next page starts, whatever was added or changed meanwhile (session-list.ts reads it in SQL).
// The cursor is base64url JSON; a client only passes it back.
import { z } from "zod";
import type { SessionSummary } from "../../client/wire/index.ts";

export const MAX_PAGE = 200;

const cursorTuple = z.tuple([z.union([z.literal(0), z.literal(1)]), z.string().max(64), z.string().max(200)]);
export type Cursor = z.infer<typeof cursorTuple>;

/** A `before` query value: an opaque cursor from an earlier page's `next_before`, checked where it comes in. */
export const sessionCursorSchema = z
  .string()
  .max(512)
  .transform((text, context): Cursor => {
    try {
      const parsed = cursorTuple.safeParse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
      if (parsed.success) return parsed.data;
    } catch {
      // Falls through to the issue below: not base64url JSON.
    }
    context.addIssue({ code: "custom", message: "before is not a cursor this server gave" });
    return z.NEVER;
  });

/** The cursor naming a listed chat: the next page starts right after it. */
export function cursorOf(summary: SessionSummary): string {
  const key: Cursor = [summary.pinned === true ? 1 : 0, summary.updated_at, summary.id];
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

export interface SummaryPage {
  sessions: SessionSummary[];
  /** The cursor of the next page; null when this page is the last. */
  next_before: string | null;
}

/** The most messages one page of a chat gives. */
export const MAX_MESSAGES_PAGE = 1000;
/** A page of a chat's messages when only `messages_before` is given. */
export const DEFAULT_MESSAGES_PAGE = 100;

export type SessionPage<S> = S & {
  messages_total: number;
  messages_start: number;
};

/**
 * Where the last `limit` shown messages before index `before` lie among `total` (the end without `before`; past the
 * end reads as the end, since a chat may have lost messages since the index was given): [start, end).
 */
export function messageRange(
  total: number,
  limit: number | undefined,
  before: number | undefined,
): { start: number; end: number } {
  const end = Math.min(before ?? total, total);
  return { start: Math.max(0, end - (limit ?? DEFAULT_MESSAGES_PAGE)), end };
}
