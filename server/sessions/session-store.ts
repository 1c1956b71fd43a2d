// Persistence of sessions as immutable versions: every save writes a new version and moves the head. A version
// stores what changed, not a copy of the session (SessionVersions, MessageLog; docs/events.md "Storage").
// The head row also carries the session's cursor: the event id up to which the head version reflects events.
import { randomUUID } from "node:crypto";
import { systemClock } from "../clock.ts";
import type { Message, Session } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { SessionEraser } from "./session-eraser.ts";
import { SessionVersions, withMessages } from "./session-versions.ts";
import { VISIBLE_SESSIONS } from "../people/chat-audiences.ts";
import { SessionList } from "./session-list.ts";
import { messageRange, type SessionPage } from "./session-pages.ts";

export interface SessionSnapshot {
  session: Session;
  cursorEventId: number;
}

/** What a new session starts with (a fork: its source's messages, title, model and request options). */
export interface NewSession extends Partial<Pick<Session, "title" | "model" | "request_options">> {
  agent_id: string;
  messages?: Message[];
  metadata?: Record<string, unknown>;
  source_session_id?: string;
  /** The person who owns it; the store's default owner (the acting admin) when absent. */
  owner_id?: string;
  /** Its id when chosen beforehand (an import whose messages were staged under it); a new UUID when absent. */
  id?: string;
}

/** How a version's messages are stored: diffed against the head, or already staged (MessageLog.stage). */
export interface SaveOptions {
  messagesStaged?: boolean;
}

type HeadRow = { id: string; body: string; cursor_event_id: number };

export class SessionStore {
  private readonly versions: SessionVersions;
  private readonly selectHead;
  private readonly selectAll;
  private readonly selectVisible;
  private readonly selectLive;
  private readonly selectMentioning;
  private readonly insertSession;
  private readonly moveHead;
  private readonly moveCursor;
  private readonly eraser: SessionEraser;
  /** The chat list, kept on the session rows by every save (session-list.ts). */
  readonly summaries: SessionList;

  constructor(
    db: Db,
    private readonly now: () => number = systemClock.now,
    /** Who owns a session created without an owner (server/runtime.ts: the acting admin person). */
    private readonly defaultOwner: () => string = () => ownerOf(db),
  ) {
    this.versions = new SessionVersions(db);
    const head = `SELECT s.id, v.body, s.cursor_event_id FROM sessions s
       JOIN session_versions v ON v.session_id = s.id AND v.version = s.head_version`;
    this.selectHead = db.prepare<[string], HeadRow>(`${head} WHERE s.id = ? AND s.deleted_at IS NULL`);
    this.selectAll = db.prepare<[], HeadRow>(`${head} WHERE s.deleted_at IS NULL ORDER BY s.created_at DESC, s.id`);
    this.selectVisible = db.prepare<[{ person: string }], HeadRow>(
      `${head} WHERE s.deleted_at IS NULL AND s.id IN (${VISIBLE_SESSIONS}) ORDER BY s.created_at DESC, s.id`,
    );
    this.selectLive = db.prepare<[string], { id: string }>(
      "SELECT id FROM sessions WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL",
    );
    this.selectMentioning = db.prepare<[string], { id: string }>(
      `SELECT s.id FROM sessions s JOIN session_versions v ON v.session_id = s.id AND v.version = s.head_version
       WHERE s.deleted_at IS NULL AND instr(v.body, ?) > 0 ORDER BY s.created_at DESC, s.id`,
    );
    this.insertSession = db.prepare<[string, string, number, string | null, string]>(
      "INSERT INTO sessions (id, agent_id, created_at, head_version, cursor_event_id, source_session_id, owner_id) VALUES (?, ?, ?, 0, 0, ?, ?)",
    );
    this.eraser = new SessionEraser(db, this.versions.messages);
    this.moveHead = db.prepare<[number, string]>("UPDATE sessions SET head_version = ? WHERE id = ?");
    this.moveCursor = db.prepare<[number, string, number]>(
      "UPDATE sessions SET cursor_event_id = ? WHERE id = ? AND cursor_event_id < ?",
    );
    this.summaries = new SessionList(db);
    this.summaries.backfill((sessionId) => this.get(sessionId)?.session);
  }

  get(sessionId: string): SessionSnapshot | undefined {
    const row = this.selectHead.get(sessionId);
    return row ? { session: this.headOf(row), cursorEventId: row.cursor_event_id } : undefined;
  }

  /**
   * The head with only its shown messages at indices [start, end) of the last `limit` before `before`
   * (session-pages.ts), the total and the first index given; undefined when there is no such live session. Only the
   * page's message bodies are read.
   */
  page(sessionId: string, limit: number | undefined, before: number | undefined): SessionPage<Session> | undefined {
    const row = this.selectHead.get(sessionId);
    return row && this.pageOf(row, limit, before);
  }

  /** The last `limit` shown messages as page() gives them, with the event cursor of the same row (one read). */
  tail(sessionId: string, limit: number): { page: SessionPage<Session>; cursorEventId: number } | undefined {
    const row = this.selectHead.get(sessionId);
    return row && { page: this.pageOf(row, limit, undefined), cursorEventId: row.cursor_event_id };
  }

  private pageOf(row: HeadRow, limit: number | undefined, before: number | undefined): SessionPage<Session> {
    const sessionId = row.id;
    const total = this.versions.messages.headCount(sessionId);
    const { start, end } = messageRange(total, limit, before);
    const session = withMessages(row.body, this.versions.messages.headRange(sessionId, start, end));
    return { ...session, messages_total: total, messages_start: start };
  }

  /**
   * Of the sessions the [session, index] places name, the live ones, each with its head messages at the places named
   * (a place past its end left out): two queries whatever the number of places, and no other message read.
   */
  shownAt(places: ReadonlyArray<readonly [string, number]>): Map<string, Map<number, Message>> {
    const ids = [...new Set(places.map(([sessionId]) => sessionId))];
    const live = new Set(this.selectLive.all(JSON.stringify(ids)).map((row) => row.id));
    const messages = this.versions.messages.headAt(
      places.filter(([sessionId, index]) => index >= 0 && live.has(sessionId)),
    );
    return new Map([...live].map((sessionId) => [sessionId, messages.get(sessionId) ?? new Map<number, Message>()]));
  }

  /**
   * The live sessions whose own fields (their head's, messages left out) hold `text` as stored JSON: a pass over the
   * fields alone, where list() would read and parse every message of every chat.
   */
  mentioning(text: string): string[] {
    return this.selectMentioning.all(text).map((row) => row.id);
  }

  /** Every live session; with `personId`, only those that person may see (owned or shared with them). */
  list(personId?: string): Session[] {
    const rows = personId === undefined ? this.selectAll.all() : this.selectVisible.all({ person: personId });
    return rows.map((row) => this.headOf(row));
  }

  /** One saved version of a session (undefined when it has no such version). */
  version(sessionId: string, version: number): Session | undefined {
    return this.versions.read(sessionId, version);
  }

  /** Inserts a new session at version 1. Call inside a transaction together with its events. */
  create(fields: NewSession, options: SaveOptions = {}): Session {
    const createdAt = this.now();
    const id = fields.id ?? randomUUID();
    const owner = fields.owner_id ?? this.defaultOwner();
    this.insertSession.run(id, fields.agent_id, createdAt, fields.source_session_id ?? null, owner);
    const iso = new Date(createdAt).toISOString();
    const session: Session = {
      id,
      agent_id: fields.agent_id,
      version: 0,
      created_at: iso,
      updated_at: iso,
      ...(fields.source_session_id ? { source_session_id: fields.source_session_id } : {}),
      ...(fields.title !== undefined ? { title: fields.title } : {}),
      ...(fields.model !== undefined ? { model: fields.model } : {}),
      ...(fields.request_options !== undefined ? { request_options: fields.request_options } : {}),
      messages: fields.messages ?? [],
      metadata: fields.metadata ?? {},
    };
    return this.save(session, options);
  }

  /** Writes `next` as the session's new head version (its version number is assigned here). */
  save(next: Session, options: SaveOptions = {}): Session {
    const saved: Session = { ...next, version: next.version + 1, updated_at: new Date(this.now()).toISOString() };
    this.versions.write(saved, this.now(), options.messagesStaged);
    this.moveHead.run(saved.version, saved.id);
    this.summaries.write(saved);
    return saved;
  }

  /**
   * Removes a session's versions and messages (bodies no other session shares) and marks its row deleted; the row
   * stays so forks still know where they came from. Call inside the transaction that publishes session_deleted.
   */
  delete(sessionId: string, alsoOverwrite?: () => void): void {
    this.eraser.erase(sessionId, this.now(), alsoOverwrite);
  }

  /** MessageLog.stage for a session not created yet (server/export/staging.ts). Call inside a transaction. */
  stageMessages(sessionId: string, version: number, position: number, messages: readonly Message[]): void {
    this.versions.messages.stage(sessionId, version, position, messages);
  }

  /** Removes the staged messages of a session that was never created. Call inside a transaction. */
  dropStaged(sessionId: string): void {
    if (this.eraser.isLive(sessionId) || this.eraser.isDeleted(sessionId))
      throw new Error(`session ${sessionId} exists: its messages are not staged`);
    this.versions.messages.dropStaged(sessionId);
  }

  /** The session and the sessions it was forked from, nearest first, deleted ones included (session-eraser.ts). */
  lineage(sessionId: string): string[] {
    return this.eraser.lineage(sessionId);
  }

  /** Whether a session that is not deleted was forked from `sessionId`, directly or through other forks. */
  hasLiveDescendant(sessionId: string): boolean {
    return this.eraser.hasLiveDescendant(sessionId);
  }

  /** Whether the session exists and is not deleted (a point query: no messages are read). */
  exists(sessionId: string): boolean {
    return this.eraser.isLive(sessionId);
  }

  isDeleted(sessionId: string): boolean {
    return this.eraser.isDeleted(sessionId);
  }

  /** Records that the head version reflects every event up to `eventId`. The cursor never moves back. */
  advanceCursor(sessionId: string, eventId: number): void {
    this.moveCursor.run(eventId, sessionId, eventId);
  }

  private headOf(row: HeadRow): Session {
    return withMessages(row.body, this.versions.messages.head(row.id));
  }
}

/** The oldest live admin person: who owns what is made without a person (scripts, benches, plugins). */
function ownerOf(db: Db): string {
  const row = db
    .prepare<[], { id: string }>(
      "SELECT id FROM people WHERE removed_at IS NULL AND role = 'admin' ORDER BY created_at, rowid LIMIT 1",
    )
    .get();
  if (!row) throw new Error("no live admin person to own a new session");
  return row.id;
}
