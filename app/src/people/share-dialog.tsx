// "Share chat" (the owner's): who the chat is shared with and how (read or write), changed or removed per person, and
// anyone else from the directory added with the access picked. At most MAX_SHARES people.
import { useEffect, useRef, useState } from "preact/hooks";
import { MAX_SHARES, type SessionSummary, type ShareAccess } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";
import { peopleErrorText } from "./people-errors.ts";

interface Props {
  session: SessionSummary;
  onClose(): void;
}

const ACCESS_LABEL: Record<ShareAccess, string> = { read: "Can read", write: "Can write" };

export function ShareDialog({ session, onClose }: Props) {
  const { people, connection, sessions } = useStore();
  const ref = useRef<HTMLDialogElement>(null);
  const [problem, setProblem] = useState<string | undefined>();
  const [adding, setAdding] = useState("");
  const [access, setAccess] = useState<ShareAccess>("read");
  useEffect(() => {
    void people.refresh().catch(() => undefined);
    const dialog = ref.current;
    if (dialog && !dialog.open && typeof dialog.showModal === "function") dialog.showModal();
    return () => dialog?.open && dialog.close?.();
  }, []);
  const shares = session.shares ?? [];
  const others = people.directory.value.filter(
    (entry) => entry.id !== session.owner && !shares.some((share) => share.person_id === entry.id),
  );
  const run = (work: (client: NonNullable<typeof connection.paired.value>["client"]) => Promise<void>) => {
    const current = connection.paired.value;
    if (!current) return;
    setProblem(undefined);
    work(current.client).catch((error: unknown) => setProblem(peopleErrorText(error)));
  };
  const share = (personId: string, chosen: ShareAccess) =>
    run(async (client) => {
      sessions.upsert(await client.shareSession(session.id, personId, chosen));
      setAdding("");
    });
  const unshare = (personId: string) =>
    run(async (client) => {
      await client.unshareSession(session.id, personId);
      sessions.upsert(await client.getSession(session.id));
    });
  return (
    <dialog
      ref={ref}
      class="confirm-dialog share-dialog"
      aria-labelledby="share-title"
      onCancel={(event) => (event.preventDefault(), onClose())}
    >
      <div class="stack">
        <h2 id="share-title">Share chat</h2>
        {problem && (
          <p class="notice error" role="alert">
            {problem}
          </p>
        )}
        {shares.length === 0 ? (
          <p class="muted">Only you can see this chat.</p>
        ) : (
          <ul class="share-list" aria-label="Shared with">
            {shares.map((entry) => {
              const name = people.nameOf(entry.person_id) ?? "Someone removed";
              return (
                <li key={entry.person_id} class="share-row">
                  <span>{name}</span>
                  <select
                    aria-label={`Access for ${name}`}
                    value={entry.access}
                    onChange={(e) => share(entry.person_id, e.currentTarget.value as ShareAccess)}
                  >
                    <option value="read">{ACCESS_LABEL.read}</option>
                    <option value="write">{ACCESS_LABEL.write}</option>
                  </select>
                  <button
                    type="button"
                    class="ghost"
                    onClick={() => unshare(entry.person_id)}
                    aria-label={`Remove ${name}`}
                  >
                    Remove
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        {others.length === 0 && shares.length === 0 && (
          <p class="muted">Nobody else is on this server yet: an admin adds people under People.</p>
        )}
        {others.length > 0 && shares.length < MAX_SHARES && (
          <form
            class="share-row"
            aria-label="Add a person"
            onSubmit={(event) => (event.preventDefault(), adding && share(adding, access))}
          >
            <select aria-label="Person" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
              <option value="">Choose a person…</option>
              {others.map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {entry.name}
                </option>
              ))}
            </select>
            <select
              aria-label="Access"
              value={access}
              onChange={(e) => setAccess(e.currentTarget.value as ShareAccess)}
            >
              <option value="read">{ACCESS_LABEL.read}</option>
              <option value="write">{ACCESS_LABEL.write}</option>
            </select>
            <button type="submit" class="primary" disabled={adding === ""}>
              Share
            </button>
          </form>
        )}
        <div class="row-actions">
          <button type="button" class="secondary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    </dialog>
  );
}
