// The upload of a document picked in the composer (loaded with the first one): the library's document method, then
// its reading followed through `document_updated` events until it is ready or failed; and a library document as it is.
import { signal, type Signal } from "@preact/signals";
import type { ChatClient, DocumentRecord } from "../../../client/index.ts";
import { forgetLibrary } from "./library-cache.ts";
import type { PendingDocument } from "./pending-document.ts";
import { newId } from "../state/ids.ts";

interface State {
  record: Signal<DocumentRecord | undefined>;
  progress: Signal<{ done: number; total: number } | undefined>;
}

/** Uploads and follows; resolves with the function that stops following. */
export async function upload(
  client: ChatClient,
  file: File,
  state: State,
  released: () => boolean,
): Promise<() => void> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const added = await client.addDocument({ name: file.name, bytes, media_type: file.type || undefined });
  forgetLibrary();
  if (released()) return () => undefined;
  state.record.value = added;
  return added.status === "reading" ? follow(client, added.id, state) : () => undefined;
}

function follow(client: ChatClient, documentId: string, { record, progress }: State): () => void {
  const off = client.on("document_updated", (event) => {
    if (event.document.id !== documentId) return;
    record.value = event.document;
    progress.value = event.progress;
    if (event.document.status !== "reading") off();
  });
  return off;
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
