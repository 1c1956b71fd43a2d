// "Share chat" (the owner's): who the chat is shared with and how (read or write), changed or removed per person, and
// anyone else from the directory added with the access picked. At most MAX_SHARES people.
import { useEffect, useState } from "preact/hooks";
import { MAX_SHARES, type DirectoryEntry, type SessionSummary, type ShareAccess } from "../../../client/index.ts";
import { DoneRow, ModalDialog } from "../components/modal-dialog.tsx";
import { useStore } from "../state/store.ts";
import { peopleErrorText } from "./people-errors.ts";
import "./people.css"; // the dialog loads on first use, with its styles
import { ErrorNotice } from "../components/error-notice.tsx";

interface Props {
  session: SessionSummary;
  onClose(): void;
}

type ShareChange = (personId: string, access: ShareAccess | undefined) => void;

export function ShareDialog({ session, onClose }: Props) {
  const { people, connection, sessions } = useStore();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    void people.refresh().catch(() => undefined);
  }, []);
  const shares = session.shares ?? [];
  const others = people.directory.value.filter(
    (entry) => entry.id !== session.owner && !shares.some((share) => share.person_id === entry.id),
  );
  /** Shares with (or changes) a person, or stops sharing with them (`undefined`); the list shows the server's answer. */
  const change: ShareChange = (personId, access) => {
    const client = connection.paired.value?.client;
    if (!client) return;
    setProblem(undefined);
    const work = access
      ? client.shareSession(session.id, personId, access)
      : client.unshareSession(session.id, personId).then(() => client.getSession(session.id));
    work.then(sessions.upsert, (error: unknown) => setProblem(peopleErrorText(error)));
  };
  return (
    <ModalDialog class="confirm-dialog share-dialog" labelledBy="share-title" onCancel={onClose}>
      <div class="stack">
        <h2 id="share-title">Share chat</h2>
        <ErrorNotice problem={problem} />
        <ShareList session={session} onChange={change} />
        {others.length === 0 && shares.length === 0 && (
          <p class="muted">Nobody else is on this server yet: an admin adds people under People.</p>
        )}
        {others.length > 0 && shares.length < MAX_SHARES && <AddShare others={others} onChange={change} />}
        <DoneRow onDone={onClose} />
      </div>
    </ModalDialog>
  );
}

function AccessOptions() {
  return (
    <>
      <option value="read">Can read</option>
      <option value="write">Can write</option>
    </>
  );
}

function ShareList({ session, onChange }: { session: SessionSummary; onChange: ShareChange }) {
  const { people } = useStore();
  const shares = session.shares ?? [];
  if (shares.length === 0) return <p class="muted">Only you can see this chat.</p>;
  return (
    <ul class="share-list" aria-label="Shared with">
      {shares.map((entry) => {
        const name = people.nameOf(entry.person_id) ?? "Someone removed";
        return (
          <li key={entry.person_id} class="share-row">
            <span>{name}</span>
            <select
              aria-label={`Access for ${name}`}
              value={entry.access}
              onChange={(e) => onChange(entry.person_id, e.currentTarget.value as ShareAccess)}
            >
              <AccessOptions />
            </select>
            <button
              type="button"
              class="ghost"
              onClick={() => onChange(entry.person_id, undefined)}
              aria-label={`Remove ${name}`}
            >
              Remove
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function AddShare({ others, onChange }: { others: readonly DirectoryEntry[]; onChange: ShareChange }) {
  const [adding, setAdding] = useState("");
  const [access, setAccess] = useState<ShareAccess>("read");
  const submit = (event: Event) => {
    event.preventDefault();
    if (adding === "") return;
    onChange(adding, access);
    setAdding("");
  };
  return (
    <form class="share-row" aria-label="Add a person" onSubmit={submit}>
      <select aria-label="Person" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
        <option value="">Choose a person…</option>
        {others.map((entry) => (
          <option key={entry.id} value={entry.id}>
            {entry.name}
          </option>
        ))}
      </select>
      <select aria-label="Access" value={access} onChange={(e) => setAccess(e.currentTarget.value as ShareAccess)}>
        <AccessOptions />
      </select>
      <button type="submit" class="primary" disabled={adding === ""}>
        Share
      </button>
    </form>
  );
}
