// The typed calls of the sessions routes (client/wire/routes/sessions.ts): the chat list, one chat, its messages.
import {
  pagedSessionEnvelopeSchema,
  sessionUpdateSchema,
  type SessionSummary,
  type SessionUpdate,
} from "../../wire/api.ts";
import type { MessagesSnapshot } from "../../wire/http.ts";
import type { Message, PagedSession, Role, Session } from "../../wire/messages.ts";
import {
  appendMessageRoute,
  createSessionRoute,
  deleteMessagesRoute,
  deleteSessionRoute,
  forkSessionRoute,
  getSessionRoute,
  listSessionsRoute,
  loadMessagesRoute,
  modifyMessageRoute,
  updateSessionRoute,
} from "../../wire/routes/sessions.ts";
import { RouteCaller } from "../route-caller.ts";

/** A page of the chat list and the cursor of the next one (null after the last). */
export interface SessionPage {
  sessions: SessionSummary[];
  next_before: string | null;
}

export abstract class SessionCalls extends RouteCaller {
  /**
   * Pinned first, then newest activity; summaries only (no messages: load them with loadMessages). Archived sessions
   * are left out unless asked for: `archived: "only"` lists them alone, `"include"` lists all.
   */
  async listSessions(options: { archived?: "only" | "include" } = {}): Promise<SessionSummary[]> {
    return (await this.call(listSessionsRoute, { query: { archived: options.archived } })).sessions;
  }

  /**
   * One page of the list in the same order (docs/sessions.md "History in pages"): at most `limit` summaries after
   * the row `before` names (an earlier page's `next_before`), and the cursor of the next page (null after the last).
   */
  async listSessionsPage(page: { limit: number; before?: string }): Promise<SessionPage> {
    const answer = await this.call(listSessionsRoute, { query: { limit: page.limit, before: page.before } });
    return { sessions: answer.sessions, next_before: answer.next_before ?? null };
  }

  /** Deletes the session everywhere (a running request is cancelled first); `session_deleted` follows. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.call(deleteSessionRoute, { params: { session_id: sessionId }, body: undefined });
  }

  async getSession(sessionId: string): Promise<Session> {
    return (await this.call(getSessionRoute, { params: { session_id: sessionId } })).session;
  }

  /**
   * The session with only the last `limit` shown messages before index `before` (the end without it), plus
   * `messages_total` and `messages_start` (docs/sessions.md "History in pages").
   */
  async getSessionPage(sessionId: string, page: { limit?: number; before?: number }): Promise<PagedSession> {
    const query = { messages_limit: page.limit, messages_before: page.before };
    // The route's contract with the page's answer schema: each message is checked once, as a page's.
    const paged = { ...getSessionRoute, answer: pagedSessionEnvelopeSchema };
    return (await this.call(paged, { params: { session_id: sessionId }, query })).session;
  }

  /**
   * With `client_session_id`, a repeat (a retry, an outbox) answers the chat the first call created. `signal` aborts
   * the call (not sent).
   */
  async createSession(
    options: { agent_id?: string; client_session_id?: string; signal?: AbortSignal } = {},
  ): Promise<Session> {
    const { signal, ...body } = options;
    return (await this.call(createSessionRoute, { body }, { signal })).session;
  }

  async forkSession(sessionId: string): Promise<Session> {
    return (await this.call(forkSessionRoute, { params: { session_id: sessionId }, body: {} })).session;
  }

  /** Renames (title; null goes back to the first user message) and/or overrides the model (null clears it). */
  async updateSession(
    sessionId: string,
    update: SessionUpdate,
    options: { signal?: AbortSignal } = {},
  ): Promise<Session> {
    const body = sessionUpdateSchema.parse(update);
    return (await this.call(updateSessionRoute, { params: { session_id: sessionId }, body }, options)).session;
  }

  async appendMessage(
    sessionId: string,
    message: { role: Role; content: string; metadata?: Record<string, unknown> },
  ): Promise<{ session: Session; message: Message }> {
    return this.call(appendMessageRoute, { params: { session_id: sessionId }, body: message });
  }

  async modifyMessage(sessionId: string, index: number, content: string): Promise<Session> {
    const params = { session_id: sessionId, index: String(index) };
    return (await this.call(modifyMessageRoute, { params, body: { content } })).session;
  }

  async deleteMessages(sessionId: string, indices: number[]): Promise<Session> {
    return (await this.call(deleteMessagesRoute, { params: { session_id: sessionId }, body: { indices } })).session;
  }

  /** A session's messages and the event cursor they reflect (ChatClient.loadMessages adds what followed). */
  async messagesSnapshot(sessionId: string, limit?: number): Promise<MessagesSnapshot> {
    const query = limit === undefined ? {} : { limit };
    return this.call(loadMessagesRoute, { params: { session_id: sessionId }, query });
  }
}
