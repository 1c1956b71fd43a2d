// Attachments chosen in the composer and not sent yet: files are uploaded at send time (the session may not
// exist before the first send), links go as they are.
export type PendingAttachment =
  | { kind: "file"; id: string; file: File; preview: string }
  | { kind: "url"; id: string; url: string };

export function pendingFile(file: File): PendingAttachment {
  return { kind: "file", id: crypto.randomUUID(), file, preview: URL.createObjectURL(file) };
}

export function pendingUrl(url: string): PendingAttachment {
  return { kind: "url", id: crypto.randomUUID(), url };
}

export function release(attachment: PendingAttachment): void {
  if (attachment.kind === "file") URL.revokeObjectURL(attachment.preview);
}
