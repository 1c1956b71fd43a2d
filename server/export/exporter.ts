// Export (docs/export.md): a session as a chat record (the session as stored and the images it uses), every session
// as a streamed JSON array of them, and a session as Markdown for people to read.
import { VISIBLE_SESSIONS } from "../people/chat-audiences.ts";
import { Readable } from "node:stream";
import type { Session } from "../../client/wire/index.ts";
import type { AssetStore } from "../assets/store.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { DomainError } from "../errors.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { ChatDocumentCopies } from "../documents/chat-copy.ts";
import { CHAT_RECORD_FORMAT, CHAT_RECORD_VERSION, type ChatRecord, type ExportedAsset } from "./format.ts";
import type { ImportLedger } from "./ledger.ts";

/** Any asset id a session's JSON names (attachments, tool output, whatever field holds it). */
const ASSET_ID = /ast_[0-9a-f]{32}/g;

export interface ExporterParts {
  db: Db;
  sessions: Pick<SessionService, "get">;
  assets: Pick<AssetStore, "read">;
  ledger: ImportLedger;
  clock: Clock;
  serverId: string;
}

export class Exporter {
  private readonly sessionIds;
  private readonly visibleIds;
  private readonly ownAssets;
  private readonly documents;

  constructor(private readonly parts: ExporterParts) {
    // In the order they were stored (oldest first; an import stores in file order): a fork comes after its source, so
    // an import can point the fork at it, and an export of an import lists the chats as the file did.
    this.sessionIds = parts.db.prepare<[], { id: string }>("SELECT id FROM sessions ORDER BY rowid");
    this.visibleIds = parts.db.prepare<[{ person: string }], { id: string }>(
      `SELECT id FROM sessions WHERE id IN (${VISIBLE_SESSIONS}) ORDER BY rowid`,
    );
    this.documents = new ChatDocumentCopies(parts.db);
    this.ownAssets = parts.db.prepare<[string], { id: string }>(
      "SELECT id FROM assets WHERE session_id = ? ORDER BY created_at, id",
    );
  }

  /** One session as its record (404 session_not_found). */
  record(sessionId: string): ChatRecord {
    return this.recordOf(this.parts.sessions.get(sessionId));
  }

  /**
   * Every session (with `personId`: every session that person may read), as the text of a JSON array of records,
   * produced one record at a time.
   */
  all(personId?: string): Readable {
    const rows = personId === undefined ? this.sessionIds.all() : this.visibleIds.all({ person: personId });
    const ids = rows.map((row) => row.id);
    const self = this;
    return Readable.from(
      (function* () {
        yield "[";
        let first = true;
        for (const id of ids) {
          const session = self.existing(id);
          if (!session) continue; // deleted since the list was read
          yield `${first ? "\n" : ",\n"}${JSON.stringify(self.recordOf(session))}`;
          first = false;
        }
        yield "\n]\n";
      })(),
      { objectMode: false },
    );
  }

  private recordOf(session: Session): ChatRecord {
    return {
      format: CHAT_RECORD_FORMAT,
      version: CHAT_RECORD_VERSION,
      source_id: this.parts.ledger.sourceOf(session.id) ?? `chat-relay:${this.parts.serverId}:${session.id}`,
      exported_at: new Date(this.parts.clock.now()).toISOString(),
      session,
      assets: this.assetsOf(session),
      documents: this.documents.of(session.id),
    };
  }

  /** The session's own images and any it names from the sessions it was forked from, with their bytes. */
  private assetsOf(session: Session): ExportedAsset[] {
    const ids = new Set(this.ownAssets.all(session.id).map((row) => row.id));
    for (const match of JSON.stringify(session).matchAll(ASSET_ID)) ids.add(match[0]);
    const assets: ExportedAsset[] = [];
    for (const id of ids) {
      const found = this.readAsset(session.id, id);
      if (found) assets.push(found);
    }
    return assets;
  }

  private readAsset(sessionId: string, assetId: string): ExportedAsset | undefined {
    try {
      const { info, bytes } = this.parts.assets.read(sessionId, assetId);
      return {
        asset_id: info.asset_id,
        media_type: info.media_type,
        ...(info.filename ? { filename: info.filename } : {}),
        data: bytes.toString("base64"),
      };
    } catch (error) {
      // A name that is not one of its assets (deleted, or text that looks like an id): nothing to carry.
      if (error instanceof DomainError && error.kind === "not_found") return undefined;
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  private existing(sessionId: string): Session | undefined {
    try {
      return this.parts.sessions.get(sessionId);
    } catch (error) {
      if (error instanceof DomainError && error.kind === "not_found") return undefined;
      throw error;
    }
  }
}
