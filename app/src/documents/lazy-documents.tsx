// The first paint's side of the documents controls (docs/documents.md "In the app"): each part is rendered from the
// documents chunk (document-controls.tsx) once it has loaded, and only where a message or the draft has something of
// documents to show, so a chat without documents never loads it. Until then a reply shows its plain markdown.
import type { ComponentChildren, ComponentProps, FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Message } from "../../../client/index.ts";
import { MarkdownView } from "../render/markdown-view.tsx";
import { useChat } from "../state/chat-context.ts";
import { useStore } from "../state/store.ts";
import { chunkLoader } from "../state/chunk-loader.ts";

type Controls = typeof import("./document-controls.tsx");

const controlsChunk = chunkLoader<Controls>(() => import("./document-controls.tsx"));

/** The documents chunk, fetched once (a failed fetch, offline before it was ever cached, is tried again next time). */
export function loadDocumentControls(): Promise<Controls> {
  return controlsChunk.load();
}

function useControls(): Controls | undefined {
  const [controls, setControls] = useState(controlsChunk.loaded);
  useEffect(() => {
    if (controlsChunk.loaded) return;
    let live = true;
    loadDocumentControls().then(
      (module) => live && setControls(module),
      () => undefined, // offline before the chunk was ever cached: the plain view stays
    );
    return () => void (live = false);
  }, []);
  return controls;
}

function lazyPart<K extends keyof Controls>(
  name: K,
  fallback: (props: ComponentProps<Controls[K]>) => ComponentChildren = () => null,
): FunctionComponent<ComponentProps<Controls[K]>> {
  return function LazyDocumentPart(props) {
    const Part = useControls()?.[name] as FunctionComponent<ComponentProps<Controls[K]>> | undefined;
    return Part ? <Part {...props} /> : <>{fallback(props)}</>;
  };
}

export const PendingDocumentChip = lazyPart("PendingDocumentChip", ({ document }) => (
  <span class="document-chip">{document.name}</span>
));
const SentAttachments = lazyPart("SentAttachments");
const CitedReply = lazyPart("CitedReply", ({ message }) => <MarkdownView text={message.content} />);
const ComposerLibraryPicker = lazyPart("ComposerLibraryPicker");

/** A user message's images and documents, or nothing when it carries none. */
export function MessageAttachments({ message }: { message: Message }) {
  const attachments = message.metadata?.attachments;
  return Array.isArray(attachments) && attachments.length > 0 ? <SentAttachments message={message} /> : null;
}

/** A reply's text: with citation links when it has citations, else plain markdown (without loading the chunk). */
export function ReplyText({ message }: { message: Message }) {
  const citations = message.metadata?.citations;
  if (!Array.isArray(citations) || citations.length === 0) return <MarkdownView text={message.content} />;
  return <CitedReply message={message} />;
}

/**
 * Why a reply's documents were searched by their words only (`metadata.retrieval_notice`: the embedding model could
 * not be used; the server sets it on one reply of a chat until the model answers again). Shown as plain text under
 * the reply, never parsed as markdown; anything but a non-empty string is ignored, and a long one cut.
 */
export function RetrievalNotice({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const notice = metadata?.retrieval_notice;
  if (typeof notice !== "string" || notice.trim() === "") return null;
  return (
    <p class="retrieval-notice" role="note">
      {notice.length > 500 ? `${notice.slice(0, 499)}…` : notice}
    </p>
  );
}

/** "#" then a word at the end of the draft: what follows the "#", or undefined. */
export function libraryQueryOf(text: string): string | undefined {
  return /(?:^|\s)#([^\s#]{0,60})$/.exec(text)?.[1];
}

/** The library picker, shown while the draft ends in "#…". */
export function LibrarySlot() {
  const { draft, readOnly } = useChat();
  const query = libraryQueryOf(draft.text.value);
  if (query === undefined || readOnly.value) return null;
  return <ComposerLibraryPicker query={query} />;
}

/** A new chat opened by "Share -> chat-relay": the shared files land in its composer once, the address loses the mark. */
export function SharedIntake() {
  const chat = useChat();
  const { env, router } = useStore();
  useEffect(() => {
    if (chat.session_id !== undefined || !/^#\/new\?(?:.*&)?shared=1(?:&|$)/.test(env.location.hash)) return;
    router.navigate({ name: "new_chat" }, { replace: true });
    loadDocumentControls()
      .then((controls) => controls.takeShared())
      .then(
        ({ files, text }) => {
          chat.draft.addFiles(files);
          if (text) chat.draft.setText(text);
        },
        (error: unknown) => env.report("taking the shared files failed", error),
      );
  }, []);
  return null;
}
