// The PDF renderer of the document viewer (docs/documents.md "In the app"), loaded on first use by pdf-loader.ts:
// pdfjs-dist 5's legacy build (it runs on the older phone browsers the app supports) with its worker served by the app
// itself as a file of the build (no CDN, nothing fetched from elsewhere). A page is drawn on a canvas at the width it
// is shown, times the screen's pixel ratio, with pdf.js's text layer over it: the page's text as transparent spans,
// which the cited passage is marked in (pdf-mark.ts). Scripts in a PDF are never run (no eval, no XFA, no scripting).
import { getDocument, GlobalWorkerOptions, TextLayer, type PDFDocumentProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import workerUrl from "pdfjs-dist/legacy/build/pdf.worker.min.mjs?url";
import "./pdf-page.css";

GlobalWorkerOptions.workerSrc = workerUrl;

export type PdfFile = PDFDocumentProxy;

/** Opens a PDF from its bytes (pdf.js takes them over: the caller passes a copy it no longer needs). */
export function openPdf(bytes: Uint8Array): Promise<PdfFile> {
  return getDocument({ data: bytes, isEvalSupported: false, enableXfa: false, stopAtErrors: false }).promise;
}

export interface PageTarget {
  canvas: HTMLCanvasElement;
  /** The text layer's container, laid over the canvas. */
  text: HTMLDivElement;
  /** The CSS width the page is shown at. */
  width: number;
}

/** A page being drawn: `done` settles once the canvas and the text layer are both drawn; `cancel` stops both. */
export interface PageDrawing {
  done: Promise<void>;
  cancel: () => void;
}

export async function drawPage(pdf: PdfFile, number: number, target: PageTarget): Promise<PageDrawing> {
  const page = await pdf.getPage(number);
  const scale = target.width / page.getViewport({ scale: 1 }).width;
  const viewport = page.getViewport({ scale });
  const ratio = Math.min(window.devicePixelRatio || 1, 3);
  const { canvas, text } = target;
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  const frame = text.parentElement!;
  frame.style.setProperty("--scale-factor", String(scale));
  frame.style.setProperty("--total-scale-factor", String(scale));
  text.replaceChildren();
  const transform = ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0];
  const drawing = page.render({ canvas, viewport, ...(transform ? { transform } : {}) });
  const layer = new TextLayer({ textContentSource: page.streamTextContent(), container: text, viewport });
  return {
    done: Promise.all([drawing.promise, layer.render()]).then(() => undefined),
    cancel: () => {
      drawing.cancel();
      layer.cancel();
    },
  };
}
