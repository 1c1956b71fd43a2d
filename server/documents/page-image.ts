// A PDF page drawn to a PNG for OCR (docs/documents.md "OCR"), in the reading worker: pdf.js's legacy build draws in
// Node on @napi-rs/canvas (its optional dependency, a prebuilt binary installed with it: nothing is fetched at run
// time), white behind the page so tesseract sees ink on paper.
import type { PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs";

/** A page as tesseract gets it: PNG bytes and the resolution they were drawn at. */
export interface PageImage {
  png: Uint8Array;
  dpi: number;
}

/** The resolution pages are drawn at (tesseract reads best at about 300 DPI). */
export const OCR_DPI = 300;
/** A page's longest side in pixels at most, whatever its size: a poster-sized page is drawn at a lower resolution. */
export const OCR_MAX_SIDE = 4200;

interface CanvasAndContext {
  canvas: { toBuffer(type: "image/png"): Uint8Array; width: number; height: number };
  context: CanvasRenderingContext2D;
}

interface CanvasFactory {
  create(width: number, height: number): CanvasAndContext;
  destroy(canvasAndContext: CanvasAndContext): void;
}

/** Draws `page` at OCR_DPI (less for a page whose longest side would pass OCR_MAX_SIDE). */
export async function drawPage(page: PDFPageProxy, factory: CanvasFactory): Promise<PageImage> {
  const unscaled = page.getViewport({ scale: 1 });
  const scale = Math.min(OCR_DPI / 72, OCR_MAX_SIDE / Math.max(unscaled.width, unscaled.height, 1));
  const viewport = page.getViewport({ scale });
  const drawn = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
  try {
    drawn.context.fillStyle = "#ffffff";
    drawn.context.fillRect(0, 0, drawn.canvas.width, drawn.canvas.height);
    await page.render({ canvasContext: drawn.context, canvas: drawn.canvas as never, viewport }).promise;
    return { png: drawn.canvas.toBuffer("image/png"), dpi: Math.round(scale * 72) };
  } finally {
    factory.destroy(drawn);
  }
}
