// Idempotent sends and new chats (docs/runner.md "Idempotent sends"): POST /sessions/{id}/send (and regenerate,
// resend) may carry a client_request_id, POST /sessions a client_session_id. A repeat answers what the first one
// made and starts nothing, so an app can retry a call whose answer it never saw (a dropped connection, a relay
// switch, an outbox that sends what was written offline hours later, after a restart of either side).
// Durable: the ids live in SQLite, written in the transaction that stores the message or creates the chat, and
// stay as long as their chat does (the eraser drops them with its content). Bounded by what they stand for: one row
// per accepted send or created chat, which stores a message or a chat anyway.
import type { Db } from "../db/database.ts";

export class ClientRequestIds {
  private readonly selectRequest;
  private readonly insertRequest;
  private readonly selectSession;
  private readonly insertSession;

  constructor(db: Db) {
    this.selectRequest = db.prepare<[string, string], { request_id: string }>(
      "SELECT request_id FROM client_requests WHERE session_id = ? AND client_request_id = ?",
    );
    this.insertRequest = db.prepare<[string, string, string]>(
      "INSERT OR IGNORE INTO client_requests (session_id, client_request_id, request_id) VALUES (?, ?, ?)",
    );
    this.selectSession = db.prepare<[string, string], { session_id: string }>(
      "SELECT session_id FROM client_sessions WHERE person_id = ? AND client_session_id = ?",
    );
    this.insertSession = db.prepare<[string, string, string]>(
      "INSERT OR IGNORE INTO client_sessions (person_id, client_session_id, session_id) VALUES (?, ?, ?)",
    );
  }

  /** The request a previous accepted send with this id started in this session, if the session still has it. */
  find(sessionId: string, clientRequestId: string): string | undefined {
    return this.selectRequest.get(sessionId, clientRequestId)?.request_id;
  }

  /** Call in the transaction that stores the request's user message, so a crash keeps both or neither. */
  remember(sessionId: string, clientRequestId: string, requestId: string): void {
    this.insertRequest.run(sessionId, clientRequestId, requestId);
  }

  /** The chat a previous POST /sessions of this person with this id created, while it exists. */
  findSession(personId: string, clientSessionId: string): string | undefined {
    return this.selectSession.get(personId, clientSessionId)?.session_id;
  }

  rememberSession(personId: string, clientSessionId: string, sessionId: string): void {
    this.insertSession.run(personId, clientSessionId, sessionId);
  }
}
