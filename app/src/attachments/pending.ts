// Attachments chosen in the composer and not sent yet: images are uploaded at send time (the session may not
// exist before the first send), links go as they are, documents are in the library already (documents/).
import type { PendingDocument } from "../documents/pending-document.ts";
import { newId } from "../state/ids.ts";

export type PendingAttachment =
  | { kind: "file"; id: string; file: File; preview: string }
  | { kind: "url"; id: string; url: string }
  | PendingDocument;

export function pendingFile(file: File): PendingAttachment {
  return { kind: "file", id: newId("att"), file, preview: URL.createObjectURL(file) };
}

export function pendingUrl(url: string): PendingAttachment {
  return { kind: "url", id: newId("att"), url };
}

export function release(attachment: PendingAttachment): void {
  if (attachment.kind === "file") URL.revokeObjectURL(attachment.preview);
  if (attachment.kind === "document") attachment.release();
}
