// Deleting a chat (docs/sessions.md "Delete"), for DELETE /sessions/{id} and for a removed person's chats: the running
// request ends first (request_cancelled, request_completed), then the content goes in one transaction with
// session_deleted (and session_access_revoked for each person it was shared with), then the attachments no live fork can still use, the chat's copies of its documents, and the WAL
// pages that still held the content.
import type { AssetStore } from "../assets/store.ts";
import type { Checkpointer } from "../db/checkpointer.ts";
import type { Transactor } from "../db/transactor.ts";
import type { DocumentService } from "../documents/document-service.ts";
import type { EventStore } from "../events/event-store.ts";
import type { EndToEnd } from "../e2e/end-to-end.ts";
import type { ChatAudiences } from "../people/chat-audiences.ts";
import { rotationForDeletedChat } from "../e2e/rotation.ts";
import type { RequestRunner } from "../runner/runner.ts";
import type { SearchIndexer } from "../search/indexer.ts";
import type { ShareLinkService } from "../sharing/share-link-service.ts";
import type { SessionService } from "./session-service.ts";

export interface ChatDeletionParts {
  sessions: SessionService;
  runner: RequestRunner;
  assets: AssetStore;
  transactor: Transactor;
  documents: DocumentService;
  e2e: EndToEnd;
  checkpoints: Pick<Checkpointer, "truncate">;
  search: { indexer: Pick<SearchIndexer, "forget"> };
  audiences: Pick<ChatAudiences, "of">;
  events: Pick<EventStore, "publish">;
  /** The chat's share links end with it (docs/people.md "Share links"). */
  shareLinks: Pick<ShareLinkService, "changed">;
}

/** Deletes the chat; false when the WAL could not be truncated afterwards (the caller logs it). */
export async function deleteChat(parts: ChatDeletionParts, sessionId: string): Promise<boolean> {
  parts.sessions.requireExists(sessionId);
  // Nothing awaits between the last check and the delete: a send that slipped in meanwhile is stopped too.
  do await parts.runner.stopSession(sessionId);
  while (parts.runner.activeRequest(sessionId) !== undefined);
  const lineage = parts.sessions.lineage(sessionId);
  const rotate = rotationForDeletedChat(parts.e2e, sessionId);
  // The people it was shared with lose it: each is told so (session_access_revoked) in the deletion's transaction.
  const sharedWith = parts.audiences.of(sessionId)?.shares ?? [];
  parts.transactor.run(() => {
    parts.sessions.delete(sessionId);
    for (const { person_id } of sharedWith)
      parts.events.publish({ type: "session_access_revoked", session_id: sessionId }, undefined, [person_id]);
  });
  parts.search.indexer.forget(sessionId);
  // Its share links stopped being live with the deletion; their sealed rows go now and the bridge is told.
  parts.shareLinks.changed();
  // Keys its people are given from now on open nothing sealed for them before (the chat's events, wherever a copy of
  // them remains).
  rotate();
  parts.assets.purgeDeleted(lineage);
  // The chat's copies of its documents go with it (docs/documents.md "Deleting").
  parts.transactor.run(() => parts.documents.store.forgetChat(sessionId));
  // The WAL still holds the pages as they were before the erasure: checkpointed and truncated before the answer.
  return parts.checkpoints.truncate();
}
