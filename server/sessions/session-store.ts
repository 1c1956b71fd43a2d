// Persistence of sessions as immutable versions: every save inserts a new version row and moves the head.
// The head row also carries the session's cursor: the event id up to which the head version reflects events.
import { randomUUID } from "node:crypto";
import type { Message, Session } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";

export interface SessionSnapshot {
  session: Session;
  cursorEventId: number;
}

type HeadRow = { body: string; cursor_event_id: number };

export class SessionStore {
  private readonly selectHead;
  private readonly selectAll;
  private readonly insertSession;
  private readonly insertVersion;
  private readonly moveHead;
  private readonly moveCursor;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.selectHead = db.prepare<[string], HeadRow>(
      `SELECT v.body, s.cursor_event_id FROM sessions s
       JOIN session_versions v ON v.session_id = s.id AND v.version = s.head_version WHERE s.id = ?`,
    );
    this.selectAll = db.prepare<[], { body: string }>(
      `SELECT v.body FROM sessions s JOIN session_versions v ON v.session_id = s.id AND v.version = s.head_version
       ORDER BY s.created_at DESC, s.id`,
    );
    this.insertSession = db.prepare<[string, string, number]>(
      "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id) VALUES (?, ?, ?, 0, 0)",
    );
    this.insertVersion = db.prepare<[string, number, number, string]>(
      "INSERT INTO session_versions (session_id, version, created_at, body) VALUES (?, ?, ?, ?)",
    );
    this.moveHead = db.prepare<[number, string]>("UPDATE sessions SET head_version = ? WHERE id = ?");
    this.moveCursor = db.prepare<[number, string, number]>("UPDATE sessions SET cursor_event_id = ? WHERE id = ? AND cursor_event_id < ?");
  }

  get(sessionId: string): SessionSnapshot | undefined {
    const row = this.selectHead.get(sessionId);
    return row ? { session: JSON.parse(row.body) as Session, cursorEventId: row.cursor_event_id } : undefined;
  }

  list(): Session[] {
    return this.selectAll.all().map((row) => JSON.parse(row.body) as Session);
  }

  /** Inserts a new session at version 1. Call inside a transaction together with its events. */
  create(fields: { agent_id: string; messages?: Message[]; metadata?: Record<string, unknown>; source_session_id?: string }): Session {
    const createdAt = this.now();
    const id = randomUUID();
    this.insertSession.run(id, fields.agent_id, createdAt);
    const iso = new Date(createdAt).toISOString();
    const session: Session = {
      id,
      agent_id: fields.agent_id,
      version: 0,
      created_at: iso,
      updated_at: iso,
      ...(fields.source_session_id ? { source_session_id: fields.source_session_id } : {}),
      messages: fields.messages ?? [],
      metadata: fields.metadata ?? {},
    };
    return this.save(session);
  }

  /** Writes `next` as the session's new head version (its version number is assigned here). */
  save(next: Session): Session {
    const saved: Session = { ...next, version: next.version + 1, updated_at: new Date(this.now()).toISOString() };
    this.insertVersion.run(saved.id, saved.version, this.now(), JSON.stringify(saved));
    this.moveHead.run(saved.version, saved.id);
    return saved;
  }

  /** Records that the head version reflects every event up to `eventId`. The cursor never moves back. */
  advanceCursor(sessionId: string, eventId: number): void {
    this.moveCursor.run(eventId, sessionId, eventId);
  }
}
