// Reading and writing one session version: its own fields (everything but `messages`, kept generic so fields
// added to sessions flow through untouched) in session_versions, its messages in the MessageLog.
import type { Message, Session } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { MessageLog, type MessageCache } from "./message-log.ts";

export class SessionVersions {
  readonly messages: MessageLog;
  private readonly selectFields;
  private readonly insertFields;

  constructor(db: Db) {
    this.messages = new MessageLog(db);
    this.selectFields = db.prepare<[string, number], { body: string }>(
      "SELECT body FROM session_versions WHERE session_id = ? AND version = ?",
    );
    this.insertFields = db.prepare<[string, number, number, string]>(
      "INSERT INTO session_versions (session_id, version, created_at, body) VALUES (?, ?, ?, ?)",
    );
  }

  /** Version `version` of a session as it was saved, or undefined when there is no such version. */
  read(sessionId: string, version: number, cache?: MessageCache): Session | undefined {
    const row = this.selectFields.get(sessionId, version);
    return row ? withMessages(row.body, this.messages.at(sessionId, version, cache)) : undefined;
  }

  /**
   * Stores `session` as its version; messages already stored for this session are referred to, not copied. With
   * `messagesStaged`, its messages' rows were written beforehand for this version (MessageLog.stage): fields only.
   */
  write(session: Session, createdAt: number, messagesStaged = false): void {
    this.insertFields.run(session.id, session.version, createdAt, JSON.stringify({ ...session, messages: [] }));
    if (!messagesStaged) this.messages.save(session.id, session.version, session.messages);
  }
}

/**
 * A session from its stored fields and its messages. The fields keep `"messages": []` where the list was, and
 * assigning an existing key keeps its place, so the session serializes exactly as it did when it was saved.
 */
export function withMessages(fieldsJson: string, messages: Message[]): Session {
  const session = JSON.parse(fieldsJson) as Session;
  session.messages = messages;
  return session;
}
