// Session operations (docs/events.md "Sessions"). Each one saves a new immutable version,
// publishes its lifecycle event and the public `checkpoint` marker, and moves the session cursor to that
// marker, all in one transaction: a reader that loads messages and polls from cursor_event_id sees every
// effect exactly once (docs/events.md "`GET /events` rules" 4; docs/events.md invariant E6). Unknown ids and bad indices are
// DomainErrors (server/errors.ts): callers besides HTTP (the runner, notifications, recovery) test their kind.
import type { Message, Session, SessionSummary, SessionUpdate } from "../../client/wire/index.ts";
import { formatEventId, sessionTitle } from "../../client/wire/index.ts";
import type { Transactor } from "../db/transactor.ts";
import type { EventStore, PublishInput, StoredSessionRef } from "../events/event-store.ts";
import { invalid, notFound } from "../errors.ts";
import type { SessionStore } from "./session-store.ts";
import { cursorOf, type Cursor, type SessionPage, type SummaryPage } from "./session-pages.ts";
import type { ArchivedFilter } from "./session-list.ts";
import { normalizeTurns, stampAppended } from "./turn-versions.ts";
import { switched } from "./turns.ts";

export interface MessagesSnapshot {
  session_id: string;
  version: number;
  messages: Message[];
  cursor_event_id: string;
  /** With a `limit`: how many shown messages the chat has, and the index of the first one given. */
  messages_total?: number;
  messages_start?: number;
}

/** A change to one session: the next state, and the events that describe it (given the saved version). */
export interface SessionChange<R> {
  next: Session;
  events: (saved: Session) => PublishInput[];
  result: (saved: Session) => R;
}

/** The version an imported chat's staged messages belong to: the one after its empty first (createFromStaged). */
const STAGED_VERSION = 2;

export class SessionService {
  constructor(
    private readonly transactor: Transactor,
    private readonly store: SessionStore,
    private readonly events: EventStore,
    private readonly knownAgents: () => Iterable<string>,
  ) {}

  /** Every live session; with `personId`, those that person may see. */
  list(personId?: string): Session[] {
    return this.store.list(personId);
  }

  /**
   * What a person's session list shows: pinned first, then newest activity first; never the messages (docs/client.md
   * "Sessions"). Archived sessions are left out unless `archived` is "include" (all) or "only" (them alone). Pinned and
   * archived are the person's own (a share holder's are on their share). Read in SQL (session-list.ts).
   */
  listSummaries(archived: ArchivedFilter, personId: string): SessionSummary[] {
    return this.store.summaries.whole(personId, archived);
  }

  /** One page of the list: `limit` summaries after the cursor `before`, in its total order (session-pages.ts). */
  listPage(archived: ArchivedFilter, limit: number, before: Cursor | undefined, personId: string): SummaryPage {
    // One row more than the page says whether another page follows.
    const rows = this.store.summaries.page(personId, archived, limit + 1, before);
    const sessions = rows.slice(0, limit);
    return { sessions, next_before: rows.length > limit ? cursorOf(sessions.at(-1)!) : null };
  }

  get(sessionId: string): Session {
    return this.require(sessionId).session;
  }

  /** The session with the last `limit` shown messages before index `before`; only those messages are read. */
  getPage(sessionId: string, limit: number | undefined, before: number | undefined): SessionPage<Session> {
    const page = this.store.page(sessionId, limit, before);
    if (!page) throw notFound("session_not_found", `no session "${sessionId}"`);
    return page;
  }

  /** SessionStore.mentioning: the live sessions whose fields (not messages) hold `text`. */
  mentioning(text: string): string[] {
    return this.store.mentioning(text);
  }

  /** SessionStore.shownAt: the live sessions the places name, with their head messages there (search snippets). */
  shownAt(places: ReadonlyArray<readonly [string, number]>): Map<string, Map<number, Message>> {
    return this.store.shownAt(places);
  }

  /** The messages and the cursor they reflect, read in one snapshot (docs/events.md E6). */
  loadMessages(sessionId: string, limit?: number): MessagesSnapshot {
    if (limit !== undefined) return this.loadTail(sessionId, limit);
    return this.transactor.read(() => {
      const { session, cursorEventId } = this.require(sessionId);
      return {
        session_id: session.id,
        version: session.version,
        messages: session.messages,
        cursor_event_id: formatEventId(cursorEventId),
      };
    });
  }

  /** The last `limit` messages and the cursor they reflect: a long chat opens at its end (docs/sessions.md P10). */
  private loadTail(sessionId: string, limit: number): MessagesSnapshot {
    const tail = this.store.tail(sessionId, limit);
    if (!tail) throw notFound("session_not_found", `no session "${sessionId}"`);
    const { page, cursorEventId } = tail;
    return {
      session_id: page.id,
      version: page.version,
      messages: page.messages,
      cursor_event_id: formatEventId(cursorEventId),
      messages_total: page.messages_total,
      messages_start: page.messages_start,
    };
  }

  /** A new empty session; `sourceSessionId` names the session it descends from (an imported fork's source). */
  create(agentId = "default", sourceSessionId?: string, ownerId?: string): Session {
    if (![...this.knownAgents()].includes(agentId))
      throw notFound("agent_not_found", `no agent "${agentId}" in the config`);
    return this.transactor.run(() => {
      const source = sourceSessionId === undefined ? {} : { source_session_id: sourceSessionId };
      const owner = ownerId === undefined ? {} : { owner_id: ownerId };
      const session = this.store.create({ agent_id: agentId, ...source, ...owner });
      this.publishWithCheckpoint(session, [
        { type: "session_created", session_id: session.id, agent_id: agentId, ...source, session },
      ]);
      return session;
    });
  }

  /**
   * An imported chat whose messages were staged beforehand under `sessionId` (stageMessages, in slices:
   * server/export/staging.ts), made visible at once, in one transaction, as create() then change() would make it:
   * version 1 without messages (session_created), `between` (its images, which need the session), then `next(v1)`
   * as version 2 over the staged messages (session_updated).
   */
  createFromStaged(
    sessionId: string,
    fields: { agent_id: string; source_session_id?: string },
    between: (first: Session) => void,
    next: (first: Session) => Session,
  ): Session {
    if (![...this.knownAgents()].includes(fields.agent_id))
      throw notFound("agent_not_found", `no agent "${fields.agent_id}" in the config`);
    return this.transactor.run(() => {
      const first = this.store.create({ ...fields, id: sessionId }, { messagesStaged: true });
      this.publishWithCheckpoint(first, [{ type: "session_created", session_id: first.id, ...fields, session: first }]);
      between(first);
      const saved = this.store.save(next(first), { messagesStaged: true });
      if (saved.version !== STAGED_VERSION) throw new Error(`staged messages are version ${STAGED_VERSION}`);
      this.publishWithCheckpoint(saved, [{ type: "session_updated", session_id: saved.id, session: saved }]);
      return saved;
    });
  }

  /**
   * Writes messages of a session not created yet, at `position` on, unseen until createFromStaged makes them its
   * version 2 (SessionStore.stageMessages). Call inside a transaction.
   */
  stageMessages(sessionId: string, position: number, messages: readonly Message[]): void {
    this.store.stageMessages(sessionId, STAGED_VERSION, position, messages);
  }

  /** Removes the staged messages of a session that was never created. */
  dropStaged(sessionId: string): void {
    this.transactor.run(() => this.store.dropStaged(sessionId));
  }

  /** A copy of a session, owned by `ownerId` (the forking person; the default owner when absent). */
  fork(sourceId: string, ownerId?: string): Session {
    return this.transactor.run(() => {
      const source = this.require(sourceId).session;
      // Notifications belong to the occurrence in the source session; the fork starts without them.
      const { notifications: _notifications, ...metadata } = source.metadata;
      const fields = {
        agent_id: source.agent_id,
        messages: source.messages,
        metadata,
        source_session_id: source.id,
        ...(ownerId !== undefined ? { owner_id: ownerId } : {}),
        ...forkFields(source),
      };
      const session = this.store.create(fields);
      this.publishWithCheckpoint(session, [
        {
          type: "session_created",
          session_id: session.id,
          agent_id: session.agent_id,
          source_session_id: source.id,
          session,
        },
      ]);
      return session;
    });
  }

  append(sessionId: string, message: Message): { session: Session; message: Message } {
    const plain: Message = { role: message.role, content: message.content, metadata: message.metadata ?? {} };
    return this.change(sessionId, (session) => {
      const [stored] = stampAppended(session.messages, [plain]) as [Message];
      const appended = {
        type: "message_appended",
        session_id: session.id,
        role: stored.role,
        content: stored.content,
        metadata: stored.metadata,
      };
      return {
        next: { ...session, messages: [...session.messages, stored] },
        events: (saved) => [{ ...appended, message: stored, session: saved }],
        result: (saved) => ({ session: saved, message: stored }),
      };
    });
  }

  modify(sessionId: string, index: number, content: string): Session {
    return this.change(sessionId, (session) => {
      const current = session.messages[index];
      if (!current)
        throw notFound(
          "message_not_found",
          `session ${sessionId} has no message at index ${index} (it has ${session.messages.length})`,
        );
      const messages = session.messages.map((m, i) => (i === index ? { ...m, content } : m));
      return {
        next: { ...session, messages },
        events: (saved) => [{ type: "message_modified", session_id: saved.id, index, content, session: saved }],
        result: (saved) => saved,
      };
    });
  }

  /**
   * Renames (a title; null: back to the first user message), sets the model override (null: the agent's model
   * again), archived, pinned and the saved request options (null: none), publishing `session_updated` with the saved
   * version. Absent fields are left as they are. `messages` (the version switch) replaces the shown path too.
   */
  update(sessionId: string, patch: SessionUpdate, messages?: Message[]): Session {
    return this.change(sessionId, (session) => ({
      next: applyUpdate(messages ? { ...session, messages } : session, patch),
      events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
      result: (saved) => saved,
    }));
  }

  /**
   * Sets a title only while the session has none (a model-written title must never replace one the user gave, even
   * one given while the title was being written). Returns the saved session, or undefined when it was left alone.
   */
  titleIfUntitled(sessionId: string, title: string): Session | undefined {
    return this.transactor.run(() => {
      const current = this.store.get(sessionId)?.session;
      if (!current || current.title !== undefined) return undefined;
      return this.update(sessionId, { title });
    });
  }

  /**
   * Deletes a session: its content leaves the store (versions, messages, event bodies as tombstones) and
   * `session_deleted` is published, in one transaction. The caller stops its requests first (routes/sessions.ts).
   */
  delete(sessionId: string): void {
    this.transactor.run(() => {
      this.requireExists(sessionId);
      this.store.delete(sessionId, () => this.events.tombstoneSession(sessionId));
      this.events.publish({ type: "session_deleted", session_id: sessionId });
    });
  }

  /** not_found unless the session exists (deleted ones do not); reads no messages, so a poll can afford it. */
  requireExists(sessionId: string): void {
    if (!this.store.exists(sessionId)) throw notFound("session_not_found", `no session "${sessionId}"`);
  }

  /** Whether the session was deleted and no session forked from it (directly or not) is left. */
  isGone(sessionId: string): boolean {
    return this.store.isDeleted(sessionId) && !this.store.hasLiveDescendant(sessionId);
  }

  /** The session and the sessions it was forked from, nearest first, deleted ones included (not_found when unknown). */
  lineage(sessionId: string): string[] {
    this.require(sessionId);
    return this.store.lineage(sessionId);
  }

  /**
   * Shows another version of the turn holding message `index` (turns.ts), publishing `session_updated`. Showing the
   * version already shown changes nothing and publishes nothing.
   */
  showVersion(sessionId: string, index: number, version: number): Session {
    return this.transactor.run(() => {
      const current = this.require(sessionId).session;
      const messages = switched(current.messages, index, version);
      if (messages.every((message, i) => message === current.messages[i])) return current;
      return this.update(sessionId, {}, messages);
    });
  }

  /** Deletes the messages at `indices` (unique: the route checks); any index out of range refuses the whole call. */
  deleteMessages(sessionId: string, indices: number[]): Session {
    return this.change(sessionId, (session) => {
      const count = session.messages.length;
      const outOfRange = indices.filter((i) => i >= count);
      if (outOfRange.length > 0) {
        throw invalid(
          "index_out_of_range",
          `indices ${outOfRange.join(", ")} are out of range: the session has ${count} messages`,
          {
            indices: outOfRange,
            message_count: count,
          },
        );
      }
      const doomed = new Set(indices);
      const sorted = [...doomed].sort((a, b) => a - b);
      return {
        next: { ...session, messages: normalizeTurns(session.messages.filter((_, i) => !doomed.has(i))) },
        events: (saved) => [{ type: "messages_deleted", session_id: saved.id, indices: sorted, session: saved }],
        result: (saved) => saved,
      };
    });
  }

  /**
   * The one way to change a session: reads the head, saves the next version, publishes the change's events
   * and the checkpoint marker, and moves the cursor, atomically. Runner and notifications use it too.
   */
  change<R>(
    sessionId: string,
    decide: (session: Session) => SessionChange<R>,
    options: { requestId?: string } = {},
  ): R {
    return this.transactor.run(() => {
      const current = this.require(sessionId).session;
      const change = decide(current);
      const saved = this.store.save(change.next);
      this.publishWithCheckpoint(saved, change.events(saved), options.requestId);
      return change.result(saved);
    });
  }

  private publishWithCheckpoint(saved: Session, events: PublishInput[], requestId?: string): void {
    for (const event of events) this.events.publish(event, storedRefOf(event, saved));
    const checkpoint = this.events.publish({
      type: "checkpoint",
      session_id: saved.id,
      ...(requestId ? { request_id: requestId } : {}),
    });
    this.store.advanceCursor(saved.id, Number(checkpoint.event_id));
  }

  private require(sessionId: string) {
    const snapshot = this.store.get(sessionId);
    if (!snapshot) throw notFound("session_not_found", `no session "${sessionId}"`);
    return snapshot;
  }
}

/**
 * An event that carries the version just saved (the very object) is stored with a reference to it instead of
 * a second copy of the session, and its `message`, when it is one of that version's messages, by index
 * (docs/events.md "Storage"). Any other event is stored as it is.
 */
function storedRefOf(event: PublishInput, saved: Session): StoredSessionRef | undefined {
  if (event.session !== saved || event.session_id !== saved.id) return undefined;
  const messageIndex = event.message === undefined ? -1 : saved.messages.lastIndexOf(event.message as Message);
  return { sessionVersion: saved.version, ...(messageIndex >= 0 ? { messageIndex } : {}) };
}

/** A fork is titled after its source ("<title> (fork)") and keeps its model and request options, not its pin. */
function forkFields(source: Session): Pick<Session, "title" | "model" | "request_options"> {
  const title = sessionTitle(source);
  return {
    ...(title !== "" ? { title: `${[...title].slice(0, 193).join("").trimEnd()} (fork)` } : {}),
    ...(source.model !== undefined ? { model: source.model } : {}),
    ...(source.request_options !== undefined ? { request_options: source.request_options } : {}),
  };
}

function applyUpdate(session: Session, patch: SessionUpdate): Session {
  let next = withField(withField(session, "title", patch.title), "model", patch.model);
  // false is stored as absence, so a session that was never archived and one unarchived serialize alike.
  if (patch.archived !== undefined) next = withField(next, "archived", patch.archived || null);
  if (patch.pinned !== undefined) next = withField(next, "pinned", patch.pinned || null);
  const options = patch.request_options;
  if (options !== undefined)
    next = withField(next, "request_options", options === null || Object.keys(options).length === 0 ? null : options);
  return next;
}

type OptionalField = "title" | "model" | "archived" | "pinned" | "request_options";

/** `undefined` leaves the field, `null` removes it, a value sets it. */
function withField<K extends OptionalField>(session: Session, key: K, value: Session[K] | null | undefined): Session {
  if (value === undefined) return session;
  const { [key]: _dropped, ...rest } = session;
  return (value === null ? rest : { ...rest, [key]: value }) as Session;
}
