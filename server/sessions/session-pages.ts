// The chat list in pages (docs/sessions.md "History in pages"): ordered by (pinned desc, updated_at desc, id desc),
// a total order, so one opaque cursor naming the last row given (all three keys) says where the next page starts,
// whatever was added or changed meanwhile. The cursor is base64url JSON; a client only passes it back.
import { z } from "zod";
import type { SessionSummary } from "../../client/wire/index.ts";

export const MAX_PAGE = 200;

const cursorTuple = z.tuple([z.union([z.literal(0), z.literal(1)]), z.string().max(64), z.string().max(200)]);
type Cursor = z.infer<typeof cursorTuple>;

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

function keyOf(summary: SessionSummary): Cursor {
  return [summary.pinned === true ? 1 : 0, summary.updated_at, summary.id];
}

function encode(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url");
}

/** Negative when `a` comes first: pinned first, then the newest activity, then the greater id. */
function compareKeys(a: Cursor, b: Cursor): number {
  if (a[0] !== b[0]) return b[0] - a[0];
  if (a[1] !== b[1]) return a[1] < b[1] ? 1 : -1;
  return a[2] === b[2] ? 0 : a[2] < b[2] ? 1 : -1;
}

export interface SummaryPage {
  sessions: SessionSummary[];
  /** The cursor of the next page; null when this page is the last. */
  next_before: string | null;
}

/** The `limit` rows after `before` (from the start without it) in the list's total order. */
export function pageOf(list: readonly SessionSummary[], limit: number, before: Cursor | undefined): SummaryPage {
  const ordered = list.map((summary) => ({ summary, key: keyOf(summary) })).sort((a, b) => compareKeys(a.key, b.key));
  const start = before === undefined ? 0 : ordered.findIndex((row) => compareKeys(row.key, before) > 0);
  const rows = start < 0 ? [] : ordered.slice(start, start + limit);
  const more = start >= 0 && start + limit < ordered.length;
  return {
    sessions: rows.map((row) => row.summary),
    next_before: more && rows.length > 0 ? encode(rows.at(-1)!.key) : null,
  };
}

/** The most messages one page of a chat gives. */
export const MAX_MESSAGES_PAGE = 1000;
/** A page of a chat's messages when only `messages_before` is given. */
export const DEFAULT_MESSAGES_PAGE = 100;

export type SessionPage<S extends { messages: readonly unknown[] }> = S & {
  messages_total: number;
  messages_start: number;
};

/**
 * The last `limit` shown messages before index `before` (the end without it; past the end reads as the end, since a
 * chat may have lost messages since the index was given), with the chat's total and the index of the first given.
 */
export function messagePageOf<S extends { messages: readonly unknown[] }>(
  session: S,
  limit: number | undefined,
  before: number | undefined,
): SessionPage<S> {
  const total = session.messages.length;
  const end = Math.min(before ?? total, total);
  const start = Math.max(0, end - (limit ?? DEFAULT_MESSAGES_PAGE));
  return { ...session, messages: session.messages.slice(start, end), messages_total: total, messages_start: start };
}
