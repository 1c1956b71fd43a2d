// The messages of every session version, stored with structural sharing (docs/events.md "Storage", S1-S3).
// A message body is written once (message_bodies); session_messages places it at a position of a session for a
// range of versions [from_version, to_version). Saving a version writes only what changed from the head: an
// append is one row, a modify closes one row and opens one, a delete closes rows. Reading a version reads the
// rows whose range holds it, in position order. The head's parsed messages are kept in a bounded cache, so an
// append reads and parses only what it has not seen: its cost does not grow with the session.
import type { Message } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";

/** One message of the head and where it sits. */
interface HeadRow {
  position: number;
  message_id: number;
}

/** What a message object read from the store was: its row, and its content then (to notice an in-place edit). */
interface Known {
  messageId: number;
  content: string;
}

/** Parsed message bodies by id, shared by the reads of one page, so a body seen twice is parsed once. */
export type MessageCache = Map<number, Message>;

/** Characters of message JSON the head cache keeps parsed (least recently used goes first). */
const HEAD_CACHE_CHARS = 64 * 1024 * 1024;

export class MessageLog {
  /**
   * Message objects this log handed out, by identity. A change builds the next session from the loaded head
   * (SessionService.change), so an unchanged message is the very object read, and it is stored again as a
   * reference, never as a copy. Only rows read from the database are remembered: they exist (a message
   * inserted by a save is remembered only when read back), so a rolled-back save can leave no stale id here.
   */
  private readonly known = new WeakMap<Message, Known>();
  private readonly parsed = new ParsedBodies(HEAD_CACHE_CHARS);
  /**
   * The next message id. Kept here, not left to SQLite, so an id is never issued twice in this process even
   * when a transaction that used it rolls back: a cached body can never be mistaken for a later message's.
   */
  private nextId: number;
  private readonly selectHead;
  private readonly countHead;
  private readonly selectHeadRange;
  private readonly selectBody;
  private readonly selectHeadAt;
  private readonly selectVersion;
  private readonly insertBody;
  private readonly insertRow;
  private readonly closeRow;

  constructor(private readonly db: Db) {
    this.selectHead = db.prepare<[string], HeadRow>(
      "SELECT position, message_id FROM session_messages WHERE session_id = ? AND to_version IS NULL ORDER BY position",
    );
    this.countHead = db.prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM session_messages WHERE session_id = ? AND to_version IS NULL",
    );
    this.selectHeadRange = db.prepare<[string, number, number], HeadRow>(
      `SELECT position, message_id FROM session_messages WHERE session_id = ? AND to_version IS NULL
       ORDER BY position LIMIT ? OFFSET ?`,
    );
    this.selectBody = db.prepare<[number], { body: string }>("SELECT body FROM message_bodies WHERE id = ?");
    // A head message's index is its rank among the head's positions (positions have gaps after deletions), so each
    // named session's head rows are ranked (no body is read) and only the wanted bodies are joined. MATERIALIZED: the
    // places become a table SQLite indexes for the join; inlined, each ranked row re-read the JSON (a 5,000-message
    // chat cost 240 ms a query instead of 13 ms, on the loaded machine).
    this.selectHeadAt = db.prepare<[string], { session_id: string; idx: number; message_id: number; body: string }>(
      `WITH wanted AS MATERIALIZED (SELECT json_extract(value, '$[0]') AS session_id, json_extract(value, '$[1]') AS idx
                       FROM json_each(?))
       SELECT h.session_id, h.idx, h.message_id, b.body
       FROM (SELECT session_id, message_id, row_number() OVER (PARTITION BY session_id ORDER BY position) - 1 AS idx
             FROM session_messages WHERE to_version IS NULL AND session_id IN (SELECT session_id FROM wanted)) h
       JOIN wanted w ON w.session_id = h.session_id AND w.idx = h.idx
       JOIN message_bodies b ON b.id = h.message_id`,
    );
    this.selectVersion = db.prepare<[string, number, number], { message_id: number; body: string }>(
      `SELECT m.message_id, b.body FROM session_messages m JOIN message_bodies b ON b.id = m.message_id
       WHERE m.session_id = ? AND m.from_version <= ? AND (m.to_version IS NULL OR m.to_version > ?) ORDER BY m.position`,
    );
    this.insertBody = db.prepare<[number, string]>("INSERT INTO message_bodies (id, body) VALUES (?, ?)");
    this.nextId =
      (db.prepare<[], { id: number | null }>("SELECT max(id) AS id FROM message_bodies").get()?.id ?? 0) + 1;
    this.insertRow = db.prepare<[string, number, number, number]>(
      "INSERT INTO session_messages (session_id, position, from_version, to_version, message_id) VALUES (?, ?, ?, NULL, ?)",
    );
    this.closeRow = db.prepare<[number, string, number]>(
      "UPDATE session_messages SET to_version = ? WHERE session_id = ? AND position = ? AND to_version IS NULL",
    );
  }

  /**
   * The head's messages; the objects are remembered, so saving them again stores no copy. They are shared
   * with the cache and frozen: a change makes new message objects, it never edits one in place.
   */
  head(sessionId: string): Message[] {
    return this.selectHead.all(sessionId).map((row) => this.parsed.get(row.message_id) ?? this.load(row.message_id));
  }

  /** How many messages the head has (an index count: no body is read). */
  headCount(sessionId: string): number {
    return this.countHead.get(sessionId)!.n;
  }

  /** The head's messages at indices [start, end): only those bodies are read (a long chat's page). */
  headRange(sessionId: string, start: number, end: number): Message[] {
    return this.selectHeadRange
      .all(sessionId, Math.max(0, end - start), start)
      .map((row) => this.parsed.get(row.message_id) ?? this.load(row.message_id));
  }

  /**
   * The head messages at the given [session, index] places, in one query whatever their number (search snippets):
   * keyed by session, then index; a place past a head's end is absent. Parsed bodies are not added to the head cache.
   */
  headAt(places: ReadonlyArray<readonly [string, number]>): Map<string, Map<number, Message>> {
    const found = new Map<string, Map<number, Message>>();
    if (places.length === 0) return found;
    for (const row of this.selectHeadAt.all(JSON.stringify(places))) {
      const message = this.parsed.get(row.message_id) ?? (JSON.parse(row.body) as Message);
      const ofSession = found.get(row.session_id) ?? new Map<number, Message>();
      found.set(row.session_id, ofSession.set(row.idx, message));
    }
    return found;
  }

  /** The messages of one version. With a cache, bodies already parsed for it are reused (the same objects). */
  at(sessionId: string, version: number, cache?: MessageCache): Message[] {
    return this.selectVersion.all(sessionId, version, version).map((row) => {
      const cached = cache?.get(row.message_id);
      if (cached) return cached;
      const message = JSON.parse(row.body) as Message;
      cache?.set(row.message_id, message);
      return message;
    });
  }

  /** Makes `messages` the content of `version`, writing only what differs from the current head. */
  save(sessionId: string, version: number, messages: readonly Message[]): void {
    const head = this.selectHead.all(sessionId);
    const ids = messages.map((message) => this.idOf(message));
    const { prefix, suffix } = commonEnds(
      head.map((row) => row.message_id),
      ids,
    );
    const closing = head.slice(prefix, head.length - suffix);
    const opening = ids.slice(prefix, ids.length - suffix);
    if (suffix > 0 && opening.length > closing.length) {
      // More messages in the middle than there are free positions there: rewrite the tail instead.
      return this.replaceFrom(sessionId, version, head, ids, prefix);
    }
    for (const row of closing) this.closeRow.run(version, sessionId, row.position);
    const after = head.length > 0 ? head[head.length - 1]!.position + 1 : 0;
    opening.forEach((messageId, i) =>
      this.insertRow.run(sessionId, closing[i]?.position ?? after + i - closing.length, version, messageId),
    );
  }

  /**
   * Writes `messages` as new bodies at positions `position` on, from `version` on, for a session that does not exist
   * yet: no reader asks for the rows of a session id it was never given, so they stay unseen until the session is
   * created over them (an import written in slices, server/export/staging.ts). Call inside a transaction.
   */
  stage(sessionId: string, version: number, position: number, messages: readonly Message[]): void {
    messages.forEach((message, i) => {
      const messageId = this.nextId++;
      this.insertBody.run(messageId, JSON.stringify(message));
      this.insertRow.run(sessionId, position + i, version, messageId);
    });
  }

  /** Removes what stage() wrote for a session that was never created (an import that failed or was cut short). */
  dropStaged(sessionId: string): void {
    const bodies = this.db
      .prepare<[string], { message_id: number }>("SELECT message_id FROM session_messages WHERE session_id = ?")
      .all(sessionId);
    this.db.prepare<[string]>("DELETE FROM session_messages WHERE session_id = ?").run(sessionId);
    const deleteBody = this.db.prepare<[number]>("DELETE FROM message_bodies WHERE id = ?");
    for (const { message_id } of bodies) deleteBody.run(message_id);
  }

  private replaceFrom(sessionId: string, version: number, head: HeadRow[], ids: number[], from: number): void {
    for (const row of head.slice(from)) this.closeRow.run(version, sessionId, row.position);
    const start = head.length > 0 ? head[head.length - 1]!.position + 1 : 0;
    ids.slice(from).forEach((messageId, i) => this.insertRow.run(sessionId, start + i, version, messageId));
  }

  /** The stored row of a message object read from here and unchanged since, else a new row for it. */
  private idOf(message: Message): number {
    const known = this.known.get(message);
    if (known && known.content === message.content) return known.messageId;
    const messageId = this.nextId++;
    this.insertBody.run(messageId, JSON.stringify(message));
    return messageId;
  }

  /** Drops parsed bodies from the head cache (their rows were deleted): deleted content leaves memory too. */
  evict(messageIds: Iterable<number>): void {
    for (const id of messageIds) this.parsed.delete(id);
  }

  private load(messageId: number): Message {
    const body = this.selectBody.get(messageId)!.body;
    const message = deepFreeze(JSON.parse(body) as Message);
    this.known.set(message, { messageId, content: message.content });
    this.parsed.set(messageId, message, body.length);
    return message;
  }
}

/** A least-recently-used map of parsed messages, bounded by the characters of their JSON. */
class ParsedBodies {
  private readonly entries = new Map<number, { message: Message; size: number }>();
  private size = 0;

  constructor(private readonly capacity: number) {}

  get(messageId: number): Message | undefined {
    const entry = this.entries.get(messageId);
    if (!entry) return undefined;
    this.entries.delete(messageId);
    this.entries.set(messageId, entry);
    return entry.message;
  }

  delete(messageId: number): void {
    const entry = this.entries.get(messageId);
    if (!entry) return;
    this.entries.delete(messageId);
    this.size -= entry.size;
  }

  set(messageId: number, message: Message, size: number): void {
    this.entries.set(messageId, { message, size });
    this.size += size;
    for (const [oldest, entry] of this.entries) {
      if (this.size <= this.capacity || oldest === messageId) break;
      this.entries.delete(oldest);
      this.size -= entry.size;
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/** Lengths of the longest common prefix and suffix of two id lists (not overlapping in either). */
function commonEnds(before: readonly number[], after: readonly number[]): { prefix: number; suffix: number } {
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shorter && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}
