// The chat list read from the server in pages (docs/app.md "History at scale"): the first page, one screen of chats,
// shows as soon as it comes, over the list the device cached (already on screen before any round trip); the rest
// follows in larger pages along the server's one cursor (pinned first, then newest activity). When the walk ends
// the list is exactly the server's, except for what events brought meanwhile: a newer copy of a chat stays, and a
// chat newer than anything the walk saw (created during it) is kept.
import type { SessionPage, SessionSummary } from "../../../client/index.ts";
import type { Sessions } from "./sessions.ts";

/** One screen of chats and some to scroll: what the first round trip brings. */
export const FIRST_PAGE = 50;
/** Every later page: the server's largest, so 10,000 chats are 50 more round trips, all after the first paint. */
export const NEXT_PAGE = 200;

export async function walkSessionPages(
  client: { listSessionsPage(page: { limit: number; before?: string }): Promise<SessionPage> },
  sessions: Pick<Sessions, "list" | "mergePage" | "replace">,
): Promise<SessionSummary[]> {
  let page = await client.listSessionsPage({ limit: FIRST_PAGE });
  const seen = [...page.sessions];
  sessions.mergePage(page.sessions);
  while (page.next_before !== null) {
    page = await client.listSessionsPage({ limit: NEXT_PAGE, before: page.next_before });
    seen.push(...page.sessions);
    sessions.mergePage(page.sessions);
  }
  const settled = settledList(sessions.list.value, seen);
  sessions.replace(settled);
  return settled;
}

/**
 * A page of the walk over what is shown: each chat once, the newer copy of the two, the page's on a tie unless it says
 * what the shown one says; the page adds the chats not shown. A chat the page brings as it is shown keeps the shown
 * object: the cached list's records hold the very objects they were read as, so the list written at the walk's end
 * rewrites only the records of chats that changed, not all of them (list-records.ts; docs/app.md OF12).
 */
export function mergeWalkedPage(shown: readonly SessionSummary[], page: readonly SessionSummary[]): SessionSummary[] {
  const byId = new Map(shown.map((session) => [session.id, session]));
  for (const copy of page) {
    const kept = byId.get(copy.id);
    if (!kept || (kept.updated_at <= copy.updated_at && !sameListed(kept, copy))) byId.set(copy.id, copy);
  }
  return [...byId.values()];
}

/**
 * The fields a chat's summary takes from the whole session (sessions.upsert: an event's, or the chat's own read),
 * which the list's pages never carry: the chat's saved request options, read by its screen from the list.
 */
const FROM_WHOLE_SESSION = new Set(["request_options"]);

/**
 * Whether a page's copy says what the shown one says in every field a page carries: a chat an event brought since the
 * cache was written holds its request options, and compared whole it differed from every page's copy of it, which
 * took its place (its record rewritten at the walk's end, its options gone from the list).
 */
function sameListed(shown: SessionSummary, page: SessionSummary): boolean {
  const listed = (summary: SessionSummary) => Object.keys(summary).filter((key) => !FROM_WHOLE_SESSION.has(key));
  const keys = listed(shown);
  const fields = (summary: SessionSummary) => summary as Record<string, unknown>;
  return (
    keys.length === listed(page).length &&
    keys.every((key) => Object.hasOwn(page, key) && sameValue(fields(shown)[key], fields(page)[key]))
  );
}

/** Whether two values read from JSON (a chat's summary) say the same: the same fields, each the same value. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  return keys.every((key) => Object.hasOwn(right, key) && sameValue(left[key], right[key]));
}

/**
 * The server's list as walked, with what events changed while it was walked: a chat shown with a newer copy keeps it,
 * and one the walk never saw stays only if it is newer than every chat the walk saw (created meanwhile); the others
 * (deleted on the server while this device was away, left over from the cache) go. The chats keep the order they are
 * shown in (the list's order on screen is sorted, `sorted` in sessions.ts): the cached list's records hold their chats
 * in it, and put in the server's order, every record holding a chat an event had moved was written again (OF14).
 */
export function settledList(shown: readonly SessionSummary[], seen: readonly SessionSummary[]): SessionSummary[] {
  const newestSeen = seen.reduce((newest, session) => (session.updated_at > newest ? session.updated_at : newest), "");
  const unsettled = new Map(seen.map((session) => [session.id, session]));
  const settled: SessionSummary[] = [];
  for (const session of shown) {
    const walked = unsettled.get(session.id);
    unsettled.delete(session.id);
    if (walked === undefined) {
      if (session.updated_at > newestSeen) settled.push(session);
    } else settled.push(walked.updated_at > session.updated_at ? walked : session);
  }
  return [...settled, ...unsettled.values()];
}
