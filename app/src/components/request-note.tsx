// A request that ended without a reply: an error with its detail and a retry, or a stop that says who or what
// stopped it ("You stopped this reply" only for a Stop; a server shutdown says the server restarted).
import type { RequestNote } from "../chat/transcript.ts";

/** `stoppedHere`: this app sent the cancel (an older server gives no reason; this device still knows). */
export function stopText(reason: RequestNote["reason"], stoppedHere = false): string {
  switch (reason) {
    case "user":
      return "You stopped this reply.";
    case "shutdown":
      return "This reply was cut short: the server restarted.";
    case "crash":
      return "This reply was cut short: the server stopped unexpectedly.";
    case "unknown":
      return stoppedHere ? "You stopped this reply." : "This reply was stopped.";
  }
}

export function RequestNoteView({
  note,
  onRetry,
  stoppedHere,
}: {
  note: RequestNote;
  onRetry?: () => void;
  stoppedHere?: boolean;
}) {
  if (note.kind === "cancelled") return <p class="request-note cancelled">{stopText(note.reason, stoppedHere)}</p>;
  return (
    <div class="request-note error" role="alert">
      <strong>{note.reason === "crash" ? "The reply was interrupted." : "The reply failed."}</strong>
      <p class="detail">{note.detail}</p>
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
