// A chat as this device's person sees it (docs/people.md "Visibility"): `owner`, `owner_name` and `shares` come with
// every session an HTTP answer carries, not with session events, so the list keeps the last ones read; and the two
// events after which this person holds nothing of a chat (deleted, or access taken away).
import type { AnyEvent, SessionSummary } from "../../../client/index.ts";

type Viewed = Pick<SessionSummary, "owner" | "owner_name" | "shares">;

/** The viewer fields a session or summary carries (none when absent). */
export function viewOf(session: Partial<Viewed> | undefined): Partial<Viewed> {
  if (!session) return {};
  const view: Partial<Viewed> = {};
  if (session.owner !== undefined) view.owner = session.owner;
  if (session.owner_name !== undefined) view.owner_name = session.owner_name;
  if (session.shares !== undefined) view.shares = session.shares;
  return view;
}

/** `session_deleted` or `session_access_revoked`: everything this device holds of the chat goes. */
export function isAccessLost(event: AnyEvent): event is AnyEvent & { session_id: string } {
  return (
    (event.type === "session_deleted" || event.type === "session_access_revoked") &&
    typeof event.session_id === "string"
  );
}
