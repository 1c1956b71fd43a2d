// The session list: summaries from GET /sessions (newest activity first), kept current from events (created,
// appended, modified, deleted, updated: each carries the saved session), and cached in localStorage so the app
// opens offline with the last loaded list, read-only.
import { computed, signal } from "@preact/signals";
import { z } from "zod";
import { isEvent, sessionSummaryOf, sessionSummarySchema, type AnyEvent, type Session, type SessionSummary } from "../../../client/index.ts";
import { readStored, writeStored } from "./local-store.ts";

const CACHE_KEY = "chat-relay.sessions";

export const sessions = signal<SessionSummary[]>(readStored(CACHE_KEY, z.array(sessionSummarySchema)) ?? []);
/** True while the list comes from the cache because the server could not be reached. */
export const sessionsOffline = signal(false);
export const sessionsLoaded = signal(false);

export const sortedSessions = computed(() => [...sessions.value].sort((a, b) => b.updated_at.localeCompare(a.updated_at)));

/** The title to show: a rename, else the first user message (the server's rule), else "New chat". */
export function titleOf(session: Pick<SessionSummary, "title">): string {
  return session.title.trim() === "" ? "New chat" : session.title;
}


export function replaceSessions(list: SessionSummary[]): void {
  sessions.value = list;
  sessionsOffline.value = false;
  sessionsLoaded.value = true;
  writeStored(CACHE_KEY, list);
}

export function upsertSession(session: Session): void {
  const summary = sessionSummaryOf(session);
  sessions.value = [...sessions.value.filter((existing) => existing.id !== summary.id), summary];
  writeStored(CACHE_KEY, sessions.value);
}

/** Applies the events that carry a whole session (created, appended, modified, deleted, updated). */
export function applySessionEvent(event: AnyEvent): void {
  if (
    isEvent(event, "session_created") ||
    isEvent(event, "message_appended") ||
    isEvent(event, "message_modified") ||
    isEvent(event, "messages_deleted") ||
    isEvent(event, "session_updated")
  ) {
    upsertSession(event.session);
  }
}

export function searchSessions(list: readonly SessionSummary[], query: string): SessionSummary[] {
  const needle = query.trim().toLowerCase();
  return needle === "" ? [...list] : list.filter((session) => titleOf(session).toLowerCase().includes(needle));
}

export function clearSessionCache(): void {
  sessions.value = [];
  sessionsLoaded.value = false;
  writeStored(CACHE_KEY, []);
}
