// The documents chunk, loaded on first use (lazy-documents.tsx): the composer's document chips and "#" library
// picker, a sent message's image thumbnails and document chips, and a reply's citation links with the viewer they
// open. Each reads the open chat (ChatContext) and the paired client (the store).
import { useEffect, useMemo, useState } from "preact/hooks";
import type { DocumentRecord, Message } from "../../../client/index.ts";
import { AttachmentThumbnails } from "../components/image-viewer.tsx";
import { offlineAssetLoader } from "../offline/offline-images.ts";
import { MarkdownView } from "../render/markdown-view.tsx";
import { useChat } from "../state/chat-context.ts";
import { useStore } from "../state/store.ts";
import { citationAt, citationsOf, linkCitations } from "./citations.ts";
import { PendingDocumentChip, SentDocumentChip } from "./document-chip.tsx";
import { DocumentViewer, type ViewerTarget } from "./document-viewer.tsx";
import { LibraryPicker } from "./library-picker.tsx";
import { libraryOf } from "./library-cache.ts";
import { libraryDocument } from "./document-upload.ts";
import { documentIdsOf } from "./sent-attachments.ts";
import "./documents.css";

export { PendingDocumentChip };
export { takeShared } from "./shared-files.ts";

function usePairedClient() {
  return useStore().connection.paired.value?.client;
}

/** The viewer's target while open, and the dialog itself. */
function useViewer() {
  const client = usePairedClient();
  const [target, setTarget] = useState<ViewerTarget | undefined>(undefined);
  const viewer =
    target && client ? <DocumentViewer client={client} target={target} onClose={() => setTarget(undefined)} /> : null;
  return { open: setTarget, viewer };
}

/** The picker under "#…" at the end of the draft; a choice replaces the "#…" with the document's chip. */
export function ComposerLibraryPicker({ query }: { query: string }) {
  const { draft } = useChat();
  const client = usePairedClient();
  if (!client) return null;
  const pick = (document: DocumentRecord) => {
    const text = draft.text.value;
    draft.setText(text.slice(0, text.length - query.length - 1));
    draft.addDocument(libraryDocument(document));
  };
  return <LibraryPicker client={client} query={query} onPick={pick} />;
}

/** What a sent user message carries: its images as thumbnails (opening the viewer), its documents as chips. */
export function SentAttachments({ message }: { message: Message }) {
  const { session_id } = useChat();
  const { env } = useStore();
  const client = usePairedClient();
  const library = useLibrary();
  const { open, viewer } = useViewer();
  // This device's copy first, so a chat read offline shows its images (docs/app.md "Offline", OF7).
  const loadAsset = useMemo(
    () => (session_id ? offlineAssetLoader(env.offline, client, session_id, env.report) : undefined),
    [env, client, session_id],
  );
  const documentIds = documentIdsOf(message.metadata?.attachments);
  return (
    <>
      <AttachmentThumbnails attachments={message.metadata?.attachments} loadAsset={loadAsset} />
      {documentIds.length > 0 && (
        <ul class="sent-documents" aria-label="Attached documents">
          {documentIds.map((id) => {
            const record = library?.find((document) => document.id === id);
            const name = record?.name ?? "Document";
            return (
              <li key={id}>
                <SentDocumentChip
                  record={record}
                  onOpen={() => session_id && open({ session_id, document_id: id, name, page: 1 })}
                />
              </li>
            );
          })}
        </ul>
      )}
      {viewer}
    </>
  );
}

/** The person's library (the names of sent documents); undefined until it answers. */
function useLibrary(): DocumentRecord[] | undefined {
  const client = usePairedClient();
  const [list, setList] = useState<DocumentRecord[] | undefined>(undefined);
  useEffect(() => {
    let live = true;
    if (client) void libraryOf(client).then((documents) => live && setList(documents));
    return () => void (live = false);
  }, [client]);
  return list;
}

/** A reply whose `[n]` are links to the passages they cite; a link opens the viewer at that page, passage marked. */
export function CitedReply({ message }: { message: Message }) {
  const { session_id } = useChat();
  const { open, viewer } = useViewer();
  const citations = citationsOf(message.metadata);
  const onClick = (event: MouseEvent) => {
    const citation = citationAt(event.target, citations);
    if (!citation || !session_id) return;
    event.preventDefault();
    open({ session_id, ...citation });
  };
  return (
    <div class="cited-reply" onClick={onClick}>
      <MarkdownView text={linkCitations(message.content, citations)} />
      {viewer}
    </div>
  );
}
