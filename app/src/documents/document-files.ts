// Which picked, dropped or pasted files go to the library as documents (docs/documents.md "Types"): PDF and DOCX, and
// the text types the server reads by their extension. Images stay images. The server decides for good (by the bytes);
// this only routes a file and names its type on the chip (document-labels.ts). Part of the first paint: kept small.

export const TYPE_BY_EXTENSION: Record<string, string> = {
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
export const SOURCE_EXTENSIONS = [
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

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/** True for a file that goes to the library rather than to the chat as an image. */
export function isDocumentFile(file: { name: string; type: string }): boolean {
  if (file.type.startsWith("image/")) return false;
  const extension = extensionOf(file.name);
  return extension in TYPE_BY_EXTENSION || SOURCE_EXTENSIONS.includes(extension) || DOCUMENT_TYPES.includes(file.type);
}
