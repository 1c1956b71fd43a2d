// Which picked, dropped or pasted files go to the library as documents (docs/documents.md "Types"): PDF and DOCX, and
// the text types the server reads by their extension. Images stay images. The server decides for good (by the bytes);
// this only routes a file and names its type on the chip. Sizes are said the way the chip and the refusals say them.
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
const SOURCE_EXTENSIONS = [
  "ts",
  "tsx",
  "js",
  "jsx",
  "py",
  "rb",
  "go",
  "rs",
  "java",
  "c",
  "h",
  "cpp",
  "cs",
  "sh",
  "sql",
  "yaml",
  "yml",
  "toml",
  "xml",
  "log",
];
const DOCUMENT_TYPES = [
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "text/plain",
  "text/markdown",
  "text/csv",
  "text/html",
  "application/json",
];

/** The file input's `accept`: images and every document type. */
export const ATTACH_ACCEPT = [
  "image/png,image/jpeg,image/gif,image/webp",
  ...DOCUMENT_TYPES,
  ...[...Object.keys(TYPE_BY_EXTENSION), ...SOURCE_EXTENSIONS].map((extension) => `.${extension}`),
].join(",");

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/** True for a file that goes to the library rather than to the chat as an image. */
export function isDocumentFile(file: { name: string; type: string }): boolean {
  if (file.type.startsWith("image/")) return false;
  const extension = extensionOf(file.name);
  return extension in TYPE_BY_EXTENSION || SOURCE_EXTENSIONS.includes(extension) || DOCUMENT_TYPES.includes(file.type);
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
