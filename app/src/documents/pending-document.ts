// A document attached in the composer and not sent yet. It goes to the person's library at once (the send needs its
// id, and the server reads it meanwhile): the chip follows its upload, then its reading through `document_updated`
// events, until "ready" (it can be sent) or "failed" (it says why). One picked from the library is ready already.
import { signal, type ReadonlySignal } from "@preact/signals";
import type { ChatClient, DocumentRecord } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { newId } from "../state/ids.ts";

export interface PendingDocument {
  kind: "document";
  id: string;
  name: string;
  media_type: string;
  bytes: number;
  /** The library's record once uploaded (status reading, ready or failed). */
  record: ReadonlySignal<DocumentRecord | undefined>;
  progress: ReadonlySignal<{ done: number; total: number } | undefined>;
  /** Why the upload was refused, or undefined. */
  problem: ReadonlySignal<string | undefined>;
  /** Stops following its events (removed, sent, or the chat closed). */
  release(): void;
}

/** Starts adding `file` to the library; the upload itself is in the documents chunk (document-upload.ts). */
export function uploadDocument(client: ChatClient, file: File): PendingDocument {
  const state = {
    record: signal<DocumentRecord | undefined>(undefined),
    progress: signal<{ done: number; total: number } | undefined>(undefined),
    problem: signal<string | undefined>(undefined),
  };
  const stops: Array<() => void> = [];
  const document: PendingDocument = {
    kind: "document",
    id: newId("att"),
    name: file.name,
    media_type: file.type,
    bytes: file.size,
    ...state,
    release: () => stops.splice(0).forEach((stop) => stop()),
  };
  let released = false;
  stops.push(() => (released = true));
  import("./document-upload.ts")
    .then((chunk) => chunk.upload(client, file, state, () => released))
    .then((stop) => (released ? stop() : stops.push(stop)))
    .catch((error: unknown) => (state.problem.value = `"${file.name}" was not added: ${describeError(error)}`));
  return document;
}

/** Why the draft cannot be sent yet because of this document, or undefined when it can go. */
export function notReady(document: PendingDocument): string | undefined {
  const record = document.record.value;
  if (document.problem.value) return `Remove "${document.name}": it was not added.`;
  if (!record || record.status === "reading") return `"${document.name}" is still being read; send once it is ready.`;
  if (record.status === "failed")
    return `Remove "${document.name}": ${record.error?.message ?? "it could not be read"}.`;
  return undefined;
}
