// "#" in the composer: the person's library (GET /documents) filtered by what follows the "#", newest first; choosing
// one attaches it (ready documents only: one still read or unreadable is shown but cannot be chosen).
import type { ChatClient, DocumentRecord } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { useLoad } from "../state/use-load.ts";
import { readingLabel, typeLabel } from "./document-labels.ts";

interface Props {
  client: ChatClient;
  /** The text typed after "#". */
  query: string;
  onPick: (document: DocumentRecord) => void;
}

export function LibraryPicker({ client, query, onPick }: Props) {
  const { loaded: documents, problem } = useLoad(
    client,
    (current) => current.listDocuments(),
    (error) => `Your documents could not be listed: ${describeError(error)}`,
  );
  const wanted = query.toLowerCase();
  const shown = (documents ?? []).filter((document) => document.name.toLowerCase().includes(wanted)).slice(0, 20);
  return (
    <div class="library-picker">
      <p class="library-picker-title" id="library-picker-title">
        Attach from your documents
      </p>
      {problem && <p role="alert">{problem}</p>}
      {!documents && !problem && <p class="muted">Loading…</p>}
      {documents && shown.length === 0 && (
        <p class="muted">
          {documents.length === 0 ? "Your library is empty: attach a file first." : `No document matches “${query}”.`}
        </p>
      )}
      <ul aria-labelledby="library-picker-title">
        {shown.map((document) => (
          <li key={document.id}>
            <button
              type="button"
              class="library-item"
              disabled={document.status !== "ready"}
              onClick={() => onPick(document)}
            >
              <span class="document-name">{document.name}</span>
              <span class="document-meta">
                {typeLabel(document.name, document.media_type)} · {readingLabel(document)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
