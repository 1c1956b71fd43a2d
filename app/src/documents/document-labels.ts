// How a document is described on its chip and in the picker: its type as a person knows it, its size, its reading.
import type { DocumentRecord } from "../../../client/index.ts";

const TYPE_BY_EXTENSION: Record<string, string> = {
  pdf: "PDF",
  docx: "Word",
  md: "Markdown",
  markdown: "Markdown",
  txt: "Text",
  csv: "CSV",
  json: "JSON",
  html: "HTML",
  htm: "HTML",
};
/** Source files the server reads as text. */
const SOURCE_EXTENSIONS = "ts tsx js jsx py rb go rs java c h cpp cs sh sql yaml yml toml xml log".split(" ");

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/** The type a person recognises ("PDF", "Word", "Markdown"), from the name, else the media type. */
export function typeLabel(name: string, mediaType = ""): string {
  const extension = extensionOf(name);
  if (TYPE_BY_EXTENSION[extension]) return TYPE_BY_EXTENSION[extension]!;
  if (SOURCE_EXTENSIONS.includes(extension)) return "Source";
  if (mediaType === "application/pdf") return "PDF";
  return "Document";
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What the chip says of a document's reading: "Reading 40%", "12 pages", or why it failed. */
export function readingLabel(record: DocumentRecord | undefined, progress?: { done: number; total: number }): string {
  if (!record) return "Uploading…";
  if (record.status === "failed") return record.error?.message ?? "Could not be read";
  if (record.status === "reading") {
    const percent = progress && progress.total > 0 ? Math.floor((100 * progress.done) / progress.total) : 0;
    return `Reading ${percent}%`;
  }
  return record.pages === 1 ? "1 page" : `${record.pages} pages`;
}
