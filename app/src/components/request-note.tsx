// A request that ended without a reply: an error with its detail and a retry, or a cancel.
import type { RequestNote } from "../chat/transcript.ts";

export function RequestNoteView({ note, onRetry }: { note: RequestNote; onRetry?: () => void }) {
  if (note.kind === "cancelled") return <p class="request-note cancelled">You stopped this reply.</p>;
  return (
    <div class="request-note error" role="alert">
      <strong>The reply failed.</strong>
      <p class="detail">{note.detail}</p>
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
