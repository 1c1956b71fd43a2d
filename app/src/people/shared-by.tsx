// "Shared by Ana" under a chat in the list: a chat another person owns and shared with this device's person.
import type { SessionSummary } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { myAccess } from "./chat-access.ts";

export function SharedBy({ session }: { session: SessionSummary }) {
  const { people } = useStore();
  if (myAccess(session, people.me.value?.id) === "owner" || !session.owner_name) return null;
  return <span class="owner-name">Shared by {session.owner_name}</span>;
}
