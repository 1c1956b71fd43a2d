// The cached list's head as stored (docs/app.md "Start-up", SU9): the record a start reads before its first render.
// It is not checked with zod there: the check of 50 summaries, with zod's compilation of the schema's fast path on its
// first parse, was about 30 ms of a phone's main thread (CPU throttled 4x) before the first row could paint. The
// record carries the format it was written in instead, a fingerprint of the summary's schema: a head written by a
// build whose summaries differ, or by a build before the stamp (a bare array), reads as absent, as a failed check did.
// The rest of the cached list is read and checked record by record after the first paint (list-records.ts).
import type { SessionSummary } from "../../../client/index.ts";
import { HEAD_CHATS } from "./list-order.ts";

/**
 * `summary-` and the first 12 hex digits of the SHA-256 of `sessionSummarySchema`'s JSON Schema (zod's
 * `toJSONSchema`, its output). test/app-state/list-head.test.ts computes it again and fails when the schema changed
 * and this did not: a changed schema must change the format, so heads cached by the builds before read as absent.
 */
export const HEAD_FORMAT = "summary-e7931f082ad6";

export interface HeadRecord {
  format: string;
  chats: readonly SessionSummary[];
}

/** The record kept under the head's key: the list's first chats, stamped with the format they are written in. */
export function headRecord(chats: readonly SessionSummary[]): HeadRecord {
  return { format: HEAD_FORMAT, chats: chats.slice(0, HEAD_CHATS) };
}

/**
 * The chats of a stored head, or undefined when it is not one this build wrote: another format, or not the shape a
 * row reads (an id, a title and a time as strings), which keeps a damaged record from breaking the first render.
 */
export function chatsOfHead(stored: unknown): SessionSummary[] | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { format, chats } = stored as Partial<HeadRecord>;
  if (format !== HEAD_FORMAT || !Array.isArray(chats) || chats.length > HEAD_CHATS) return undefined;
  return chats.every(isRowShaped) ? (chats as SessionSummary[]) : undefined;
}

function isRowShaped(chat: unknown): boolean {
  if (typeof chat !== "object" || chat === null) return false;
  const { id, title, updated_at } = chat as Record<string, unknown>;
  return typeof id === "string" && typeof title === "string" && typeof updated_at === "string";
}
