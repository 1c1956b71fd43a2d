// Which picked, dropped or pasted files go to the library as documents (docs/documents.md "Types"): every file that is
// not an image. The server decides by the bytes (PDF, DOCX, and text types by their extension) and refuses the rest
// with a reason the chip shows. Part of the first paint: kept small (the type names are in document-labels.ts).

/** The file input's `accept`: images and the document types (a file manager still offers "All files"). */
export const ATTACH_ACCEPT =
  "image/png,image/jpeg,image/gif,image/webp,application/pdf,.pdf,.docx,text/*,.md,.markdown,.txt,.csv,.json,.html,.htm";

/** True for a file that goes to the library rather than to the chat as an image. */
export function isDocumentFile(file: { type: string }): boolean {
  return !file.type.startsWith("image/");
}
