// The document viewer a citation opens: the chat's copy of the document at the cited page (a PDF's page, a section of
// the others). A PDF is rendered (pdf-loader.ts loads pdf.js on first use, pdf-page-view.tsx draws the page and marks
// the passage in its text layer) and pages on with Previous and Next; while it loads, and when it cannot (the viewer
// or the file could not be had), the page's extracted text is shown, with the passage marked and a line saying why.
// Other types show their text around the passage. Text goes through the chat's routes, so it works for anyone who may
// read the chat, through the relay, and after the library's document is deleted. Nothing in a document (an HTML
// file's script, a PDF's JavaScript) is ever run.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatClient, DocumentPage } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { findQuote } from "./citations.ts";
import { usePdf } from "./pdf-loader.ts";
import { PdfPageView } from "./pdf-page-view.tsx";

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
  const pdfFile = target.name.toLowerCase().endsWith(".pdf");
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const pdf = usePdf(client, target.session_id, target.document_id, pdfFile);
  const rendered = pdf.kind === "ready" && failure === undefined ? pdf : undefined;
  const fallback = failure ?? (pdf.kind === "fallback" ? pdf.reason : undefined);
  const loaded = usePage(client, target, page, rendered === undefined);
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  useEffect(() => dialog.current?.querySelector(".document-text mark")?.scrollIntoView({ block: "center" }), [loaded]);
  const title = `${target.name}, ${pdfFile ? "page" : "section"} ${page}`;
  const quote = page === target.page ? target.quote : undefined;
  const last = rendered ? page >= rendered.pdf.numPages : loaded.kind === "failed";
  return (
    <dialog
      ref={dialog}
      class="document-viewer"
      aria-labelledby="document-viewer-title"
      data-view={rendered ? "pdf" : "text"}
      onClose={onClose}
    >
      <header>
        <h2 id="document-viewer-title">{title}</h2>
        <button type="button" class="ghost" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      {pdfFile && fallback && <p role="status">{`${fallback} Showing the page's text instead.`}</p>}
      {pdfFile && pdf.kind === "loading" && <p class="muted">Loading the PDF viewer…</p>}
      {rendered ? (
        <PdfPageView
          renderer={rendered.renderer}
          pdf={rendered.pdf}
          page={page}
          label={`Page ${page} of ${target.name}`}
          quote={quote}
          onFailed={(error) => setFailure(`The page could not be drawn: ${describeError(error)}`)}
        />
      ) : (
        <>
          {loaded.kind === "loading" && <p class="muted">Loading…</p>}
          {loaded.kind === "failed" && <p role="alert">{loaded.message}</p>}
          {loaded.kind === "page" && <PageText text={loaded.page.text} quote={quote} clip={!pdfFile} />}
        </>
      )}
      {pdfFile && (
        <nav class="row-actions" aria-label="Pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <button type="button" class="secondary" disabled={last} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
    </dialog>
  );
}

type Loaded = { kind: "loading" } | { kind: "failed"; message: string } | { kind: "page"; page: DocumentPage };

/** The page's text from the chat's route, while `wanted` (a rendered PDF needs none). */
function usePage(client: ChatClient, target: ViewerTarget, page: number, wanted: boolean): Loaded {
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    setLoaded({ kind: "loading" });
    client.chatDocumentText(target.session_id, target.document_id, page).then(
      (answer) => live && setLoaded({ kind: "page", page: answer }),
      (error: unknown) =>
        live && setLoaded({ kind: "failed", message: `This page could not be opened: ${describeError(error)}` }),
    );
    return () => void (live = false);
  }, [client, target.session_id, target.document_id, page, wanted]);
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
