// A document as a chip: its name, type, size and reading ("Reading 40%", "12 pages", or why it failed). In the composer
// it can be removed before sending; on a sent message it opens the document's first page.
import type { DocumentRecord } from "../../../client/index.ts";
import type { PendingDocument } from "./pending-document.ts";
import { formatBytes, readingLabel, typeLabel } from "./document-labels.ts";

function FileIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" class="document-icon">
      <path d="M6 3h8l4 4v14H6zM14 3v4h4M9 12h6M9 16h6" />
    </svg>
  );
}

/** A document attached in the composer: follows its upload and reading; × removes it. */
export function PendingDocumentChip({ document, onRemove }: { document: PendingDocument; onRemove: () => void }) {
  const record = document.record.value;
  const problem = document.problem.value;
  const status = problem ?? readingLabel(record, document.progress.value);
  const state = problem ? "failed" : (record?.status ?? "uploading");
  return (
    <div class="document-chip" data-status={state}>
      <FileIcon />
      <span class="document-chip-text">
        <span class="document-name">{document.name}</span>
        <span class="document-meta">
          {typeLabel(document.name, document.media_type)} · {formatBytes(document.bytes)} ·{" "}
          <span role="status">{status}</span>
        </span>
      </span>
      {state === "reading" && record && <ReadingBar progress={document.progress.value} />}
      <button type="button" class="remove" aria-label={`Remove ${document.name}`} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}

function ReadingBar({ progress }: { progress: { done: number; total: number } | undefined }) {
  return (
    <progress class="document-progress" aria-label="Reading" max={progress?.total || 1} value={progress?.done ?? 0} />
  );
}

/** A document a sent message carries; its name from the library when it is still there. */
export function SentDocumentChip({ record, onOpen }: { record: DocumentRecord | undefined; onOpen: () => void }) {
  const name = record?.name ?? "Document";
  return (
    <button type="button" class="document-chip sent" aria-label={`Open ${name}`} onClick={onOpen}>
      <FileIcon />
      <span class="document-chip-text">
        <span class="document-name">{name}</span>
        {record && (
          <span class="document-meta">
            {typeLabel(record.name, record.media_type)} · {formatBytes(record.bytes)} · {readingLabel(record)}
          </span>
        )}
      </span>
    </button>
  );
}
