// Audit log (admin role; Settings → People → Audit log): what gave someone access to another person's chats or devices,
// newest first, each entry a sentence (audit-entry.ts). The time shows relative; the exact time is its tooltip, and a
// tap (or a long press, on a phone without hover) spells it out.
import { useState } from "preact/hooks";
import type { AuditEntry, Person } from "../../../client/index.ts";
import { titleOf } from "../state/sessions.ts";
import { useStore } from "../state/store.ts";
import { useLoad } from "../state/use-load.ts";
import { adminScreen } from "./admin-only.tsx";
import { describeAuditEntry, type AuditLine, type AuditNames } from "./audit-entry.ts";
import { peopleErrorText } from "./people-errors.ts";
import "./people.css";
import { ErrorNotice } from "../components/error-notice.tsx";

interface Loaded {
  entries: AuditEntry[];
  people: Person[];
}

export const AuditScreen = adminScreen("Audit log", "Only an admin reads the audit log.", AuditLog);

function AuditLog() {
  const { connection, sessions, env } = useStore();
  const { loaded, problem } = useLoad(
    connection.paired.value?.client,
    async (client): Promise<Loaded> => {
      const [entries, people] = await Promise.all([client.auditLog(), client.listPeople()]);
      return { entries, people };
    },
    (error) => `The audit log could not be read: ${peopleErrorText(error)}`,
  );
  const names: AuditNames = {
    personName: (id) => loaded?.people.find((person) => person.id === id)?.name,
    chatTitle: (id) => {
      const session = sessions.list.value.find((item) => item.id === id);
      return session && titleOf(session);
    },
  };
  return (
    <main class="page people audit" aria-labelledby="audit-title">
      <div class="page-head">
        <h1 id="audit-title">Audit log</h1>
        <a class="button" href="#/people">
          People
        </a>
      </div>
      <p class="muted">
        Every time someone got access to another person's chats or devices: a chat read with the admin token, a pairing
        code made for someone else, chats transferred, everything exported, providers or tools changed. Kept 90 days.
      </p>
      <ErrorNotice problem={problem} />
      {loaded === undefined && !problem && <p class="muted">Loading…</p>}
      {loaded?.entries.length === 0 && <p class="muted">Nothing recorded yet.</p>}
      {loaded && loaded.entries.length > 0 && (
        <ol class="audit-list">
          {loaded.entries.map((entry, index) => (
            <AuditRow key={`${entry.at}-${index}`} line={describeAuditEntry(entry, names, env.now())} />
          ))}
        </ol>
      )}
    </main>
  );
}

function AuditRow({ line }: { line: AuditLine }) {
  const [exact, setExact] = useState(false);
  const toggle = (event: Event) => (event.preventDefault(), setExact(!exact));
  return (
    <li class="card audit-entry">
      <p class="audit-sentence">
        <strong>{line.actor}</strong> {line.what}
        {line.whose !== undefined && (
          <>
            {" "}
            <strong>{line.whose}</strong>
          </>
        )}
        {line.chat && <> · {line.chat.title === undefined ? "a chat" : <q>{line.chat.title}</q>}</>}
      </p>
      <button
        type="button"
        class="audit-time muted small"
        title={line.exact}
        aria-label={`${line.when}, ${line.exact}`}
        onClick={toggle}
        onContextMenu={toggle}
      >
        <time dateTime={line.at}>{exact ? line.exact : line.when}</time>
      </button>
    </li>
  );
}
