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

/**
 * `session_deleted`, or `session_access_revoked` of a chat this person does not own: everything this device holds of
 * the chat goes. A revocation names no person, and an owner never loses a chat by one (a transfer away revokes the
 * old owner's devices first), so one that reaches an owner's device is not for it and is ignored.
 */
export function isAccessLost(
  event: AnyEvent,
  list: readonly Pick<SessionSummary, "id" | "owner">[],
  viewer: string | undefined,
): event is AnyEvent & { session_id: string } {
  if (typeof event.session_id !== "string") return false;
  if (event.type === "session_deleted") return true;
  if (event.type !== "session_access_revoked") return false;
  const owner = list.find((item) => item.id === event.session_id)?.owner;
  return viewer === undefined || owner === undefined || owner !== viewer;
}
