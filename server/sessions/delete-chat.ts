// Deleting a chat (docs/sessions.md "Delete"), for DELETE /sessions/{id} and for a removed person's chats: the running
// request ends first (request_cancelled, request_completed), then the content goes in one transaction with
// session_deleted, then the attachments no live fork can still use.
import type { AssetStore } from "../assets/store.ts";
import type { RequestRunner } from "../runner/runner.ts";
import type { SessionService } from "./session-service.ts";

export interface ChatDeletionParts {
  sessions: SessionService;
  runner: RequestRunner;
  assets: AssetStore;
}

export async function deleteChat(parts: ChatDeletionParts, sessionId: string): Promise<void> {
  parts.sessions.requireExists(sessionId);
  // Nothing awaits between the last check and the delete: a send that slipped in meanwhile is stopped too.
  do await parts.runner.stopSession(sessionId);
  while (parts.runner.activeRequest(sessionId) !== undefined);
  const lineage = parts.sessions.lineage(sessionId);
  parts.sessions.delete(sessionId);
  parts.assets.purgeDeleted(lineage);
}
