// The session list: loaded from GET /sessions, kept current from events (created, appended, updated, deleted),
// cached in localStorage so the app opens offline with the last loaded sessions, read-only.
import { computed, signal } from "@preact/signals";
import { z } from "zod";
import { isEvent, sessionSchema, type AnyEvent, type Session } from "../../../client/index.ts";
import { readStored, writeStored } from "./local-store.ts";

const CACHE_KEY = "chat-relay.sessions";
/** Messages kept per cached session: enough to read the recent exchange offline, small enough for storage. */
const CACHED_MESSAGES = 40;
/** The title of a cached session, whose first messages may have been trimmed away. */
const CACHED_TITLE = "app_cached_title";

export const sessions = signal<Session[]>(readStored(CACHE_KEY, z.array(sessionSchema)) ?? []);
/** True while the list comes from the cache because the server could not be reached. */
export const sessionsOffline = signal(false);
export const sessionsLoaded = signal(false);

export const sortedSessions = computed(() => [...sessions.value].sort((a, b) => lastActivity(b).localeCompare(lastActivity(a))));

export function lastActivity(session: Session): string {
  return session.updated_at;
}

/** The title: a rename, else the first user message, else "New chat". */
export function titleOf(session: Session): string {
  for (const named of [session.title, session.metadata.title, session.metadata[CACHED_TITLE]]) {
    if (typeof named === "string" && named.trim() !== "") return named;
  }
  const first = session.messages.find((message) => message.role === "user" && message.content.trim() !== "");
  return first ? firstLine(first.content) : "New chat";
}

/** The session's model override (PATCH /sessions {model}), if any. */
export function modelOverrideOf(session: Session): string | undefined {
  const model = session.model ?? session.metadata.model;
  return typeof model === "string" && model !== "" ? model : undefined;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export function replaceSessions(list: Session[]): void {
  sessions.value = list;
  sessionsOffline.value = false;
  sessionsLoaded.value = true;
  persist();
}

export function upsertSession(session: Session): void {
  const others = sessions.value.filter((existing) => existing.id !== session.id);
  sessions.value = [...others, session];
  persist();
}

/** Applies the events that carry a whole session (created, appended, modified, deleted, updated). */
export function applySessionEvent(event: AnyEvent): void {
  if (isEvent(event, "session_created") || isEvent(event, "message_appended") || isEvent(event, "message_modified") || isEvent(event, "messages_deleted")) {
    upsertSession(event.session);
    return;
  }
  if (event.type === "session_updated") {
    const parsed = sessionSchema.safeParse((event as { session?: unknown }).session);
    if (parsed.success) upsertSession(parsed.data);
  }
}

export function searchSessions(list: readonly Session[], query: string): Session[] {
  const needle = query.trim().toLowerCase();
  return needle === "" ? [...list] : list.filter((session) => titleOf(session).toLowerCase().includes(needle));
}

function persist(): void {
  const trimmed = sessions.value.map((session) => ({
    ...session,
    metadata: { ...session.metadata, [CACHED_TITLE]: titleOf(session) },
    messages: session.messages.slice(-CACHED_MESSAGES),
  }));
  writeStored(CACHE_KEY, trimmed);
}

export function clearSessionCache(): void {
  sessions.value = [];
  sessionsLoaded.value = false;
  writeStored(CACHE_KEY, []);
}
