// A document attached in the composer and not sent yet. It goes to the person's library at once (the send needs its
// id, and the server reads it meanwhile): the chip follows its upload, then its reading through `document_updated`
// events, until "ready" (it can be sent) or "failed" (it says why). One picked from the library is ready already.
import { signal, type ReadonlySignal } from "@preact/signals";
import type { ChatClient, DocumentRecord } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { newId } from "../state/ids.ts";
import { forgetLibrary } from "./library-cache.ts";

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

/** Uploads `file` to the library with the client's document method and follows its reading. */
export function uploadDocument(client: ChatClient, file: File): PendingDocument {
  const record = signal<DocumentRecord | undefined>(undefined);
  const progress = signal<{ done: number; total: number } | undefined>(undefined);
  const problem = signal<string | undefined>(undefined);
  let stop: (() => void) | undefined;
  let released = false;
  const upload = async () => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const added = await client.addDocument({ name: file.name, bytes, media_type: file.type });
    forgetLibrary();
    if (released) return;
    record.value = added;
    if (added.status === "reading") stop = follow(client, added.id, record, progress);
  };
  upload().catch((error: unknown) => (problem.value = `"${file.name}" was not added: ${describeError(error)}`));
  return {
    kind: "document",
    id: newId("att"),
    name: file.name,
    media_type: file.type,
    bytes: file.size,
    record,
    progress,
    problem,
    release: () => ((released = true), stop?.()),
  };
}

/** A document of the library (the "#" picker), attached as it is. */
export function libraryDocument(document: DocumentRecord): PendingDocument {
  return {
    kind: "document",
    id: newId("att"),
    name: document.name,
    media_type: document.media_type,
    bytes: document.bytes,
    record: signal(document),
    progress: signal(undefined),
    problem: signal(undefined),
    release: () => undefined,
  };
}

function follow(
  client: ChatClient,
  documentId: string,
  record: { value: DocumentRecord | undefined },
  progress: { value: { done: number; total: number } | undefined },
): () => void {
  const off = client.on("document_updated", (event) => {
    if (event.document.id !== documentId) return;
    record.value = event.document;
    progress.value = event.progress;
    if (event.document.status !== "reading") off();
  });
  return off;
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
