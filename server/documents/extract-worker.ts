// The extraction worker (docs/documents.md "Reading"): reads one file off the main thread and posts what it finds, a
// page (PDF) or section (DOCX, HTML, Markdown) at a time. First it posts the count, and waits to be told to go on, so a
// document over max_pages is refused before any page is extracted. It runs with a bounded heap: a DOCX that is a zip
// bomb ends the worker, not the server.
import { readFile } from "node:fs/promises";
import { parentPort } from "node:worker_threads";
import type { ExtractRequest, ExtractMessage, Section } from "./extract-messages.ts";
import type { PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import { DOCX, PDF } from "./detect.ts";
import { drawPage } from "./page-image.ts";
import { sectionsOfHtml, sectionsOfMarkdown } from "./sections.ts";
import { checkUnpackedSize, MAX_UNPACKED_BYTES, ZipTooLarge } from "./zip-bound.ts";

// A worker reads one document after another (reader.ts keeps it while it does well): pdf.js is loaded and its code
// compiled once; each document starts with a message naming the file.
const pdfjsLoading = import("pdfjs-dist/legacy/build/pdf.mjs");
pdfjsLoading.catch(() => undefined); // a failed load is reported when a PDF needs it
const nextRequest = () => new Promise<ExtractRequest>((resolve) => parentPort!.once("message", resolve));
const post = (message: ExtractMessage) => parentPort!.postMessage(message);
const goOn = () => new Promise<boolean>((resolve) => parentPort!.once("message", (go: boolean) => resolve(go)));

/** Text of a page's text layer, lines kept. */
async function textOf(page: PDFPageProxy): Promise<string> {
  const content = await page.getTextContent();
  let text = "";
  for (const item of content.items) if ("str" in item) text += item.str + (item.hasEOL ? "\n" : " ");
  return text.replace(/[ \t]+\n/g, "\n").trim();
}

async function extractPdf(data: Uint8Array, ocrPages: number): Promise<void> {
  const pdfjs = await pdfjsLoading;
  const task = pdfjs.getDocument({
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const pdf = await task.promise;
  post({ type: "count", pages: pdf.numPages });
  if (!(await goOn())) return void (await pdf.destroy());
  let drawn = 0;
  for (let number = 1; number <= pdf.numPages; number++) {
    const page = await pdf.getPage(number);
    const text = await textOf(page);
    if (text === "" && drawn < ocrPages) {
      // A page with no text layer (a scan): drawn for OCR, one at a time, so at most one image is held.
      drawn++;
      const image = await drawPage(page, pdf.canvasFactory as Parameters<typeof drawPage>[1]).catch(() => undefined);
      page.cleanup();
      if (!image)
        post({ type: "page", section: { page: number, text } }); // a page that cannot be drawn stays empty
      else {
        post({ type: "scan", page: number, image });
        if (!(await goOn())) return void (await pdf.destroy());
      }
    } else {
      post({ type: "page", section: { page: number, text } });
      page.cleanup();
    }
  }
  await pdf.destroy();
}

async function sections(request: ExtractRequest, bytes: Buffer): Promise<Section[]> {
  if (request.mediaType === DOCX) {
    checkUnpackedSize(bytes);
    const mammoth = await import("mammoth");
    const { value } = await mammoth.default.convertToHtml({ buffer: bytes });
    return sectionsOfHtml(value);
  }
  const text = bytes.toString("utf8");
  if (request.mediaType === "text/html") return sectionsOfHtml(text);
  if (request.mediaType === "text/markdown") return sectionsOfMarkdown(text);
  return [{ page: 1, text }];
}

async function read(request: ExtractRequest): Promise<void> {
  const bytes = await readFile(request.file);
  if (request.mediaType === PDF) await extractPdf(new Uint8Array(bytes), request.ocrPages ?? 0);
  else {
    const found = await sections(request, bytes);
    post({ type: "count", pages: found.length });
    if (!(await goOn())) return;
    for (const section of found) post({ type: "page", section });
  }
  post({ type: "done" });
}

function failed(error: unknown): void {
  const name = (error as { name?: string }).name;
  const message =
    error instanceof ZipTooLarge
      ? `it unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB (a zip bomb?)`
      : error instanceof Error
        ? error.message
        : String(error);
  post({ type: "failed", reason: name === "PasswordException" ? "encrypted" : "corrupt", message });
}

for (;;) await read(await nextRequest()).catch(failed);
