// What the extraction worker and the reader say to each other (extract-worker.ts, reader.ts).
import type { PageImage } from "./page-image.ts";

/** A page of a PDF, or a section of any other document (its heading, when it has one). */
export interface Section {
  page: number;
  heading?: string;
  text: string;
}

export interface ExtractRequest {
  file: string;
  mediaType: string;
  /** Set when a PDF page with no text is drawn for OCR: the pages drawn at most (docs/documents.md "OCR"). */
  ocrPages?: number;
}

export type ExtractMessage =
  | { type: "count"; pages: number }
  | { type: "page"; section: Section }
  /** A PDF page with no text, drawn: the reader posts its OCR'd text as the page, then tells the worker to go on. */
  | { type: "scan"; page: number; image: PageImage }
  | { type: "done" }
  | { type: "failed"; reason: "encrypted" | "corrupt"; message: string };
