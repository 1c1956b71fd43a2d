// One rendered page of a PDF in the document viewer (docs/documents.md "In the app"): the canvas pdf.js draws at the
// width the dialog gives it, the text layer over it, and the cited passage marked there and scrolled into view. A page
// that fails to draw hands the error up (`onFailed`): the viewer then shows the text instead.
import { useEffect, useRef, useState } from "preact/hooks";
import type { PdfFile } from "./pdf-render.ts";
import type { PdfRenderer } from "./pdf-loader.ts";
import { markPassage } from "./pdf-mark.ts";

interface Props {
  renderer: PdfRenderer;
  pdf: PdfFile;
  page: number;
  label: string;
  quote: string | undefined;
  onFailed: (error: unknown) => void;
}

/** The widest a page is drawn (CSS pixels): wider screens leave margins rather than huge canvases. */
const MAX_WIDTH = 900;

export function PdfPageView({ renderer, pdf, page, label, quote, onFailed }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const text = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState<{ page: number; marked: boolean } | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let cancel = () => {};
    const frame = text.current!.parentElement!;
    const width = Math.min(frame.parentElement!.clientWidth || MAX_WIDTH, MAX_WIDTH);
    setDrawn(undefined);
    renderer
      .drawPage(pdf, page, { canvas: canvas.current!, text: text.current!, width })
      .then((drawing) => {
        cancel = drawing.cancel;
        return drawing.done;
      })
      .then(() => {
        if (!live) return;
        const marks = quote ? markPassage(text.current!, quote) : [];
        marks[0]?.scrollIntoView({ block: "center" });
        setDrawn({ page, marked: marks.length > 0 });
      })
      .catch((error: unknown) => live && onFailed(error));
    return () => {
      live = false;
      cancel();
    };
  }, [renderer, pdf, page, quote]);
  return (
    <div class="pdf-pages">
      <div class="pdf-page" data-drawn={drawn?.page === page ? "yes" : "no"}>
        <canvas ref={canvas} role="img" aria-label={label} />
        <div ref={text} class="textLayer" />
      </div>
      {drawn && quote && !drawn.marked && <p class="muted">The cited passage was not found on this page.</p>}
    </div>
  );
}
