// The PDF viewer's first use (docs/documents.md "In the app"): the renderer (pdf-render.ts, pdf.js and its worker,
// over a megabyte) is fetched by a dynamic import only when a PDF is opened, never in the first paint nor with the
// documents chunk; the file comes from the chat's file route in parts (the library's chatDocumentFile), directly or
// through the bridge. Anything that fails (the renderer offline, the file no longer kept, a PDF pdf.js refuses) ends in
// `fallback` with a sentence saying why, and the viewer shows the page's text instead.
import { useEffect, useState } from "preact/hooks";
import type { ChatClient } from "../../../client/index.ts";
import { chunkLoader } from "../state/chunk-loader.ts";
import { describeError } from "../state/errors.ts";

export type PdfRenderer = typeof import("./pdf-render.ts");

/** The renderer, fetched once (a failed fetch is tried again at the next opening). */
const pdfRenderer = chunkLoader<PdfRenderer>(() => import("./pdf-render.ts"));

export type PdfState =
  | { kind: "loading" }
  | { kind: "ready"; renderer: PdfRenderer; pdf: import("./pdf-render.ts").PdfFile }
  | { kind: "fallback"; reason: string };

/** Opens the chat's copy's file in the renderer, once per document shown. */
export function usePdf(client: ChatClient, sessionId: string, documentId: string, wanted: boolean): PdfState {
  const [state, setState] = useState<PdfState>(wanted ? { kind: "loading" } : { kind: "fallback", reason: "" });
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    let opened: import("./pdf-render.ts").PdfFile | undefined;
    void openFile(client, sessionId, documentId).then((next) => {
      if (next.kind === "ready") opened = next.pdf;
      if (live) setState(next);
      else void opened?.destroy();
    });
    return () => {
      live = false;
      void opened?.destroy();
    };
  }, [client, sessionId, documentId, wanted]);
  return state;
}

async function openFile(client: ChatClient, sessionId: string, documentId: string): Promise<PdfState> {
  let renderer: PdfRenderer;
  try {
    renderer = await pdfRenderer.load();
  } catch (error) {
    return { kind: "fallback", reason: `The PDF viewer could not be loaded: ${describeError(error)}` };
  }
  let file;
  try {
    file = await client.chatDocumentFile(sessionId, documentId);
  } catch (error) {
    return { kind: "fallback", reason: `The original file could not be fetched: ${describeError(error)}` };
  }
  try {
    return { kind: "ready", renderer, pdf: await renderer.openPdf(file.bytes) };
  } catch (error) {
    return { kind: "fallback", reason: `The PDF viewer could not open the file: ${describeError(error)}` };
  }
}
