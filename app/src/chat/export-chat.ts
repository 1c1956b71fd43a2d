// Export chat (loaded on first use, so the first load does not carry it): the server's
// GET /sessions/{id}/export?format=markdown|json, saved as a download. A server without that route (404 that is not
// `session_not_found`) gets the same file made here from the session, so the control works against either.
import { ResponseError, type ChatClient, type Session } from "../../../client/index.ts";

export type ExportFormat = "markdown" | "json";

export async function exportChat(
  client: ChatClient,
  session_id: string,
  format: ExportFormat,
  title: string,
): Promise<void> {
  let blob: Blob;
  try {
    const file = await client.exportSession(session_id, format);
    blob = new Blob([file.bytes as BlobPart], { type: file.media_type });
  } catch (error) {
    if (!(error instanceof ResponseError) || error.status !== 404 || error.code === "session_not_found") throw error;
    const session = await client.getSession(session_id);
    blob =
      format === "json"
        ? new Blob([JSON.stringify({ session }, null, 2)], { type: "application/json" })
        : new Blob([markdownOf(session, title)], { type: "text/markdown" });
  }
  download(blob, `${fileNameOf(title)}.${format === "json" ? "json" : "md"}`);
}

/** The chat as Markdown: the title, then each message under its role (the content is markdown already). */
export function markdownOf(session: Pick<Session, "messages">, title: string): string {
  const parts = [`# ${title}`];
  for (const message of session.messages) {
    if (message.role === "tool") continue;
    const who = message.role === "user" ? "You" : message.role === "assistant" ? "Assistant" : "System";
    parts.push(`## ${who}\n\n${message.content}`);
  }
  return `${parts.join("\n\n")}\n`;
}

function fileNameOf(title: string): string {
  const cleaned = title
    .replace(/[^\p{L}\p{N} _-]+/gu, "")
    .trim()
    .slice(0, 60)
    .replace(/\s+/g, "-");
  return cleaned === "" ? "chat" : cleaned;
}

export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled: the download has its own reference by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
