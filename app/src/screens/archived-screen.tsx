// The "Archived" view: chats archived on any device (GET /sessions?archived=only), each opening as usual; a chat is
// restored with its "Archive chat" switch. Loaded when opened, and read again when a chat event arrives.
import { describeError } from "../state/errors.ts";
import { hrefOf } from "../state/router.ts";
import { byPinThenActivity } from "../state/list-order.ts";
import { titleOf } from "../state/sessions.ts";
import { useStore } from "../state/store.ts";
import { useLoad } from "../state/use-load.ts";
import { relativeTime } from "../state/time.ts";
import { ErrorNotice } from "../components/error-notice.tsx";

export function ArchivedScreen() {
  const { connection, sessions } = useStore();
  const current = connection.paired.value;
  const { loaded, problem } = useLoad(
    current,
    (paired) => paired.client.listSessions({ archived: "only" }),
    (error) => `The archived chats could not be loaded: ${describeError(error, connection.badge.value)}`,
  );
  // What this device learned since (archived or restored here or elsewhere) wins over the loaded list.
  const known = new Map(sessions.list.value.map((item) => [item.id, item]));
  const merged = new Map((loaded ?? []).map((item) => [item.id, known.get(item.id) ?? item]));
  for (const item of known.values()) if (item.archived === true) merged.set(item.id, item);
  const list = [...merged.values()].filter((item) => item.archived === true).sort(byPinThenActivity);
  return (
    <section class="screen archived" aria-labelledby="archived-title">
      <h1 id="archived-title">Archived</h1>
      <ErrorNotice problem={problem} />
      {!problem && loaded === undefined ? (
        <p class="muted">Loading archived chats…</p>
      ) : list.length === 0 && !problem ? (
        <p class="muted">
          No archived chats. Archive a chat with its "Archive chat" button to keep it out of the list.
        </p>
      ) : (
        <ul class="plain-list">
          {list.map((session) => (
            <li key={session.id}>
              <a class="session-row" href={hrefOf({ name: "chat", session_id: session.id })}>
                <span class="session-title">{titleOf(session)}</span>
                <span class="session-meta">
                  <span>{session.agent_id}</span>
                  <time dateTime={session.updated_at}>{relativeTime(session.updated_at)}</time>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
