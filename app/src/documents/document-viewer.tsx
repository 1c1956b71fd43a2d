// The document viewer a citation opens: the chat's copy of the document at the cited page (a PDF's page, a section of
// the others), as its extracted text with the cited passage marked and scrolled into view. It reads the text through
// the chat's route, so it works for anyone who may read the chat, through the relay, and after the library's document
// is deleted. Text is shown as text: nothing in a document (an HTML file's script included) is ever run. A PDF pages
// on with Previous and Next; other types show the text around the passage.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatClient, DocumentPage } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { findQuote } from "./citations.ts";

export interface ViewerTarget {
  session_id: string;
  document_id: string;
  name: string;
  page: number;
  /** The passage to mark; absent when a chip opened the document. */
  quote?: string;
}

/** How much text either side of the passage a non-PDF shows. */
const AROUND = 1500;

interface Props {
  client: ChatClient;
  target: ViewerTarget;
  onClose: () => void;
}

export function DocumentViewer({ client, target, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [page, setPage] = useState(target.page);
  const loaded = usePage(client, target, page);
  const pdf = target.name.toLowerCase().endsWith(".pdf");
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  useEffect(() => dialog.current?.querySelector("mark")?.scrollIntoView({ block: "center" }), [loaded]);
  const title = `${target.name}, ${pdf ? "page" : "section"} ${page}`;
  return (
    <dialog ref={dialog} class="document-viewer" aria-labelledby="document-viewer-title" onClose={onClose}>
      <header>
        <h2 id="document-viewer-title">{title}</h2>
        <button type="button" class="ghost" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      {loaded.kind === "loading" && <p class="muted">Loading…</p>}
      {loaded.kind === "failed" && <p role="alert">{loaded.message}</p>}
      {loaded.kind === "page" && (
        <PageText text={loaded.page.text} quote={page === target.page ? target.quote : undefined} clip={!pdf} />
      )}
      {pdf && (
        <nav class="row-actions" aria-label="Pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <button type="button" class="secondary" disabled={loaded.kind === "failed"} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
    </dialog>
  );
}

type Loaded = { kind: "loading" } | { kind: "failed"; message: string } | { kind: "page"; page: DocumentPage };

function usePage(client: ChatClient, target: ViewerTarget, page: number): Loaded {
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  useEffect(() => {
    let live = true;
    setLoaded({ kind: "loading" });
    client.chatDocumentText(target.session_id, target.document_id, page).then(
      (answer) => live && setLoaded({ kind: "page", page: answer }),
      (error: unknown) =>
        live && setLoaded({ kind: "failed", message: `This page could not be opened: ${describeError(error)}` }),
    );
    return () => void (live = false);
  }, [client, target.session_id, target.document_id, page]);
  return loaded;
}

/** The page's text with the passage in <mark>; `clip` keeps only the text around it. */
function PageText({ text, quote, clip }: { text: string; quote: string | undefined; clip: boolean }) {
  const at = quote ? findQuote(text, quote) : undefined;
  if (!at) return <div class="document-text">{clip ? text.slice(0, 2 * AROUND) : text}</div>;
  const from = clip ? Math.max(0, at.start - AROUND) : 0;
  const to = clip ? Math.min(text.length, at.end + AROUND) : text.length;
  return (
    <div class="document-text">
      {from > 0 && "…"}
      {text.slice(from, at.start)}
      <mark>{text.slice(at.start, at.end)}</mark>
      {text.slice(at.end, to)}
      {to < text.length && "…"}
    </div>
  );
}
