// What the extraction worker and the reader say to each other (extract-worker.ts, reader.ts).

/** A page of a PDF, or a section of any other document (its heading, when it has one). */
export interface Section {
  page: number;
  heading?: string;
  text: string;
}

export interface ExtractRequest {
  file: string;
  mediaType: string;
}

export type ExtractMessage =
  | { type: "count"; pages: number }
  | { type: "page"; section: Section }
  | { type: "done" }
  | { type: "failed"; reason: "encrypted" | "corrupt"; message: string };
