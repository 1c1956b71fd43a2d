// Notification history: the application's records, terminal ones included (resolved, dismissed, expired), newest
// first, for reading only (no effects run, nothing is dismissed). A failure says why instead of "Loading…".
import type { ClientRecord } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { useLoad } from "../state/use-load.ts";
import { relativeTime } from "../state/time.ts";
import { ErrorNotice } from "../components/error-notice.tsx";

export function HistoryScreen() {
  const { connection } = useStore();
  const client = connection.paired.value?.client;
  const { loaded: records, problem } = useLoad(
    client,
    async (client) => newestFirst(await client.notifications.history({ scope: "application" })),
    (error) => `The history could not be loaded: ${describeError(error, connection.badge.value)}`,
  );
  return (
    <main class="page history">
      <h1>Notification history</h1>
      <ErrorNotice problem={problem} />
      {records === undefined && !problem && <p class="muted">Loading…</p>}
      {records?.length === 0 && <p class="muted">Nothing yet.</p>}
      <ul class="history-list">
        {records?.map((record) => (
          <li key={record.id} class={`card history-item severity-${record.severity}`}>
            <div class="history-head">
              <strong>{record.title}</strong>
              <span class={`status status-${record.status}`}>{record.status.replaceAll("_", " ")}</span>
            </div>
            {record.body && <p>{record.body}</p>}
            <time class="muted small" dateTime={record.updated_at}>
              {relativeTime(record.updated_at)}
            </time>
          </li>
        ))}
      </ul>
    </main>
  );
}

function newestFirst(records: ClientRecord[]): ClientRecord[] {
  return [...records].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
}
