// What this device's person holds on a chat, read from the session's `owner` and `shares` (docs/people.md "Access"),
// so the chat offers only what the server would allow: a `read` share gets a read-only composer, a share holder no
// owner's controls. A server without people (no `owner`) makes everyone the owner, as before.
import type { SessionSummary } from "../../../client/index.ts";

export type MyAccess = "owner" | "write" | "read";

type Viewed = Pick<SessionSummary, "owner" | "shares">;

export function myAccess(session: Viewed | undefined, myId: string | undefined): MyAccess {
  if (session?.owner === undefined || myId === undefined || session.owner === myId) return "owner";
  return session.shares?.find((share) => share.person_id === myId)?.access ?? "read";
}

/** Why sending is off in a chat shared read-only with this person, or undefined. */
export function sharedReadOnlyReason(
  session: (Viewed & { owner_name?: string }) | undefined,
  myId: string | undefined,
) {
  if (myAccess(session, myId) !== "read") return undefined;
  return `${session?.owner_name ?? "Its owner"} shared this chat with you to read. Use “Copy to my chats” to continue it.`;
}
