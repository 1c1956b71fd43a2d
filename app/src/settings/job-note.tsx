// The line under a long job of the Data section (export my chats, import chats): what the job did, or why it did not.
import { useState } from "preact/hooks";
import { describeError } from "../state/errors.ts";

interface Note {
  text: string;
  error: boolean;
}

/**
 * The job's note, and `run`: clears the note, runs the job (its answer becomes the note, or `${failed}: why` when it
 * throws), then `settle` either way (the progress gone).
 */
export function useJobNote(failed: string) {
  const [note, setNote] = useState<Note | undefined>();
  const run = async (job: () => Promise<string>, settle: () => void) => {
    setNote(undefined);
    try {
      setNote({ text: await job(), error: false });
    } catch (error) {
      setNote({ text: `${failed}: ${describeError(error)}`, error: true });
    } finally {
      settle();
    }
  };
  return { note, run };
}

export function JobNote({ note }: { note: Note | undefined }) {
  if (!note) return null;
  return (
    <p class={`notice ${note.error ? "error" : ""}`} role="status">
      {note.text}
    </p>
  );
}
