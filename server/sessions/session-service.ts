// Session operations (SPEC.md "Session and message lifecycle"). Each one saves a new immutable version,
// publishes its lifecycle event and the public `checkpoint` marker, and moves the session cursor to that
// marker, all in one transaction: a reader that loads messages and polls from cursor_event_id sees every
// effect exactly once (SPEC GET /events rule 4; docs/events.md invariant E6). Unknown ids and bad indices are
// DomainErrors (server/errors.ts): callers besides HTTP (the runner, notifications, recovery) test their kind.
import type { Message, Session, SessionSummary, SessionUpdate } from "../../client/wire/index.ts";
import { formatEventId, sessionSummaryOf } from "../../client/wire/index.ts";
import type { Transactor } from "../db/transactor.ts";
import type { EventStore, PublishInput, StoredSessionRef } from "../events/event-store.ts";
import { invalid, notFound } from "../errors.ts";
import type { SessionStore } from "./session-store.ts";

export interface MessagesSnapshot {
  session_id: string;
  version: number;
  messages: Message[];
  cursor_event_id: string;
}

/** A change to one session: the next state, and the events that describe it (given the saved version). */
export interface SessionChange<R> {
  next: Session;
  events: (saved: Session) => PublishInput[];
  result: (saved: Session) => R;
}

export class SessionService {
  constructor(
    private readonly transactor: Transactor,
    private readonly store: SessionStore,
    private readonly events: EventStore,
    private readonly knownAgents: () => Iterable<string>,
  ) {}

  list(): Session[] {
    return this.store.list();
  }

  /** What a session list shows, newest activity first; never the messages (docs/client.md "Sessions"). */
  listSummaries(): SessionSummary[] {
    return this.store
      .list()
      .map(sessionSummaryOf)
      .sort((a, b) => (a.updated_at === b.updated_at ? 0 : a.updated_at < b.updated_at ? 1 : -1));
  }

  get(sessionId: string): Session {
    return this.require(sessionId).session;
  }

  /** The messages and the cursor they reflect, read in one snapshot (docs/events.md E6). */
  loadMessages(sessionId: string): MessagesSnapshot {
    return this.transactor.read(() => {
      const { session, cursorEventId } = this.require(sessionId);
      return { session_id: session.id, version: session.version, messages: session.messages, cursor_event_id: formatEventId(cursorEventId) };
    });
  }

  create(agentId = "default"): Session {
    if (![...this.knownAgents()].includes(agentId)) throw notFound("agent_not_found", `no agent "${agentId}" in the config`);
    return this.transactor.run(() => {
      const session = this.store.create({ agent_id: agentId });
      this.publishWithCheckpoint(session, [{ type: "session_created", session_id: session.id, agent_id: agentId, session }]);
      return session;
    });
  }

  fork(sourceId: string): Session {
    return this.transactor.run(() => {
      const source = this.require(sourceId).session;
      // Notifications belong to the occurrence in the source session; the fork starts without them.
      const { notifications: _notifications, ...metadata } = source.metadata;
      const session = this.store.create({ agent_id: source.agent_id, messages: source.messages, metadata, source_session_id: source.id });
      this.publishWithCheckpoint(session, [
        { type: "session_created", session_id: session.id, agent_id: session.agent_id, source_session_id: source.id, session },
      ]);
      return session;
    });
  }

  append(sessionId: string, message: Message): { session: Session; message: Message } {
    const stored: Message = { role: message.role, content: message.content, metadata: message.metadata ?? {} };
    return this.change(sessionId, (session) => ({
      next: { ...session, messages: [...session.messages, stored] },
      events: (saved) => [
        { type: "message_appended", session_id: saved.id, role: stored.role, content: stored.content, metadata: stored.metadata, message: stored, session: saved },
      ],
      result: (saved) => ({ session: saved, message: stored }),
    }));
  }

  modify(sessionId: string, index: number, content: string): Session {
    return this.change(sessionId, (session) => {
      const current = session.messages[index];
      if (!current) throw notFound("message_not_found", `session ${sessionId} has no message at index ${index} (it has ${session.messages.length})`);
      const messages = session.messages.map((m, i) => (i === index ? { ...m, content } : m));
      return {
        next: { ...session, messages },
        events: (saved) => [{ type: "message_modified", session_id: saved.id, index, content, session: saved }],
        result: (saved) => saved,
      };
    });
  }

  /**
   * Renames (a title; null: back to the first user message) and/or sets the model override (null: the agent's
   * model again), publishing `session_updated` with the saved version. Absent fields are left as they are.
   */
  update(sessionId: string, patch: SessionUpdate): Session {
    return this.change(sessionId, (session) => ({
      next: withField(withField(session, "title", patch.title), "model", patch.model),
      events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
      result: (saved) => saved,
    }));
  }

  /** Deletes the messages at `indices` (unique: the route checks); any index out of range refuses the whole call. */
  deleteMessages(sessionId: string, indices: number[]): Session {
    return this.change(sessionId, (session) => {
      const count = session.messages.length;
      const outOfRange = indices.filter((i) => i >= count);
      if (outOfRange.length > 0) {
        throw invalid("index_out_of_range", `indices ${outOfRange.join(", ")} are out of range: the session has ${count} messages`, {
          indices: outOfRange,
          message_count: count,
        });
      }
      const doomed = new Set(indices);
      const sorted = [...doomed].sort((a, b) => a - b);
      return {
        next: { ...session, messages: session.messages.filter((_, i) => !doomed.has(i)) },
        events: (saved) => [{ type: "messages_deleted", session_id: saved.id, indices: sorted, session: saved }],
        result: (saved) => saved,
      };
    });
  }

  /**
   * The one way to change a session: reads the head, saves the next version, publishes the change's events
   * and the checkpoint marker, and moves the cursor, atomically. Runner and notifications use it too.
   */
  change<R>(sessionId: string, decide: (session: Session) => SessionChange<R>, options: { requestId?: string } = {}): R {
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
    const checkpoint = this.events.publish({ type: "checkpoint", session_id: saved.id, ...(requestId ? { request_id: requestId } : {}) });
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


/** `undefined` leaves the field, `null` removes it, a string sets it. */
function withField(session: Session, key: "title" | "model", value: string | null | undefined): Session {
  if (value === undefined) return session;
  const { [key]: _dropped, ...rest } = session;
  return value === null ? rest : { ...rest, [key]: value };
}
