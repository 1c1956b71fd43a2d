// The chat list's order (as GET /sessions gives it: pinned first, then newest activity) and its first screen, the
// part of the cached list a start reads before its first render (docs/app.md "History at scale").
import type { SessionSummary } from "../../../client/index.ts";

/** The chats of the list's first screen and some to scroll: what the device's cache keeps apart as the list's head. */
export const HEAD_CHATS = 50;

/**
 * Pinned chats first, then the newest activity. The times are the server's ISO 8601 UTC strings, so their code-unit
 * order is their time order (localeCompare, which is locale-aware, made sorting ten thousand chats a long task on a
 * phone).
 */
export function byPinThenActivity(a: SessionSummary, b: SessionSummary): number {
  const pinned = Number(b.pinned === true) - Number(a.pinned === true);
  if (pinned !== 0) return pinned;
  return a.updated_at === b.updated_at ? 0 : a.updated_at < b.updated_at ? 1 : -1;
}

/** The list's first screen: its unarchived chats in order, the first HEAD_CHATS. */
export function listHead(list: readonly SessionSummary[]): SessionSummary[] {
  return list
    .filter((session) => session.archived !== true)
    .sort(byPinThenActivity)
    .slice(0, HEAD_CHATS);
}
