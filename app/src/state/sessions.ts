// The chat list: summaries from GET /sessions (newest activity first), kept current from the events that carry a
// whole session (created, appended, modified, deleted messages, updated) and from `session_deleted`, and cached
// for the offline view. An older copy of a session never replaces a newer one: a send's own answer may arrive after
// the events it caused, and would otherwise put back "New chat" over the title the first message gave.
import { computed, signal, type ReadonlySignal, type Signal } from "@preact/signals";
import { isEvent, sessionSummaryOf, type AnyEvent, type Session, type SessionSummary } from "../../../client/index.ts";
import { afterNextPaint } from "./frames.ts";
import type { AppEnv } from "./env.ts";
import { byPinThenActivity, HEAD_CHATS } from "./list-order.ts";
import { mergeWalkedPage } from "./session-pages.ts";
import { isAccessLost, viewOf } from "../people/session-view.ts";

export interface Sessions {
  readonly list: ReadonlySignal<SessionSummary[]>;
  /** Pinned first, then newest activity; archived chats left out (they have their own view). */
  readonly sorted: ReadonlySignal<SessionSummary[]>;
  /** True while the list comes from the cache because the server could not be reached. */
  readonly offline: ReadonlySignal<boolean>;
  readonly loaded: ReadonlySignal<boolean>;
  /**
   * Reads the cached list's first screen (before the first render, so the app opens with it, online or not); the
   * whole cached list follows after the first paint, unless the server's list came first.
   */
  restore(): Promise<void>;
  /**
   * Resolves once the whole cached list is shown (after restore's first paint), with whether the device had one: a
   * start resumes from the saved event cursor only over the whole cached list (docs/app.md "Start from the cache").
   */
  restoredWhole(): Promise<boolean>;
  replace(list: SessionSummary[]): void;
  /** A page of the server's list (session-pages.ts) over what is shown; cached by the `replace` that ends the walk. */
  mergePage(page: readonly SessionSummary[]): void;
  markOffline(): void;
  /** The cached list, caught up from the event cursor, is the server's now (a start that resumed went live). */
  markCurrent(): void;
  upsert(session: Session): void;
  remove(session_id: string): void;
  /** Applies a session event; returns whether it was one. */
  apply(event: AnyEvent): boolean;
  /** Whether the event takes the chat away from this device's person (deleted, or their access revoked). */
  losesAccess(event: AnyEvent): event is AnyEvent & { session_id: string };
  clear(): void;
}

/** The title to show: a rename, else the first user message (the server's rule), else "New chat". */
export function titleOf(session: Pick<SessionSummary, "title">): string {
  return session.title.trim() === "" ? "New chat" : session.title;
}

export function searchSessions(list: readonly SessionSummary[], query: string): readonly SessionSummary[] {
  const needle = query.trim().toLowerCase();
  // With no query, the list itself: a copy at each render was a new list for the chat list's rows each time, which
  // placed all of them again (docs/app.md HS6).
  return needle === "" ? list : list.filter((session) => titleOf(session).toLowerCase().includes(needle));
}

/** `viewer`: this device's person (app/src/people/), so a chat it owns is never dropped as someone else's loss. */
export function createSessions(env: AppEnv, viewer: () => string | undefined = () => undefined): Sessions {
  const list = signal<SessionSummary[]>([]);
  const offline = signal(false);
  const loaded = signal(false);
  const sorted = computed(() => list.value.filter((item) => item.archived !== true).sort(byPinThenActivity));
  const { persist, restore, restoredWhole } = listCache(env, { list, sorted, loaded });
  const sessions: Sessions = {
    list,
    sorted,
    offline,
    loaded,
    restore,
    restoredWhole,
    replace(next) {
      list.value = next;
      offline.value = false;
      loaded.value = true;
      persist({ whole: true });
    },
    mergePage(page) {
      list.value = mergeWalkedPage(list.value, page);
      offline.value = false;
      loaded.value = true;
    },
    markOffline: () => void (offline.value = true),
    markCurrent() {
      offline.value = false;
      loaded.value = true;
    },
    upsert(session) {
      // The chat's saved request options ride along, so every device shows the same choice.
      const summary: SessionSummary = {
        ...sessionSummaryOf(session),
        ...countOf(session),
        request_options: session.request_options ?? {},
      };
      const existing = list.value.find((item) => item.id === summary.id);
      if (existing && existing.updated_at > summary.updated_at) return;
      // A session event carries the chat as stored: who owns it and its shares stay as this person last read them.
      const viewed = { ...viewOf(existing), ...viewOf(session), ...summary };
      list.value = [...list.value.filter((item) => item.id !== summary.id), viewed];
      persist();
    },
    remove(session_id) {
      list.value = list.value.filter((item) => item.id !== session_id);
      void env.offline
        .forgetSession(session_id)
        .catch((error: unknown) => env.report("forgetting a deleted chat failed", error));
    },
    apply(event) {
      if (sessions.losesAccess(event)) {
        sessions.remove(event.session_id);
        return true;
      }
      const carriesSession =
        isEvent(event, "session_created") ||
        isEvent(event, "message_appended") ||
        isEvent(event, "message_modified") ||
        isEvent(event, "messages_deleted") ||
        isEvent(event, "session_updated") ||
        // Shared with this person (or given to them): the chat as they see it.
        (event.type === "session_access_granted" && "session" in event);
      if (carriesSession) sessions.upsert((event as AnyEvent & { session: Session }).session);
      return carriesSession;
    },
    losesAccess: (event): event is AnyEvent & { session_id: string } => isAccessLost(event, list.value, viewer()),
    clear() {
      list.value = [];
      loaded.value = false;
      offline.value = false;
    },
  };
  return sessions;
}

/**
 * The list in the device's cache: `persist` keeps it with its first screen; `restore` shows the cached first screen,
 * then, after the first paint, the whole cached list under what is shown (a newer copy shown stays), unless the
 * server's list came first. Nothing is persisted while only the first screen is shown (it would replace the whole
 * cached list with its first 50 chats), nor, when the server's pages came before the cached list was read, until the
 * walk's end: the list shown is then the pages walked so far, and written it replaced the cached list with them
 * (docs/app.md OF13).
 */
function listCache(
  env: AppEnv,
  state: { list: Signal<SessionSummary[]>; sorted: ReadonlySignal<SessionSummary[]>; loaded: ReadonlySignal<boolean> },
) {
  const { list, sorted, loaded } = state;
  const failed = (what: string) => (error: unknown) => env.report(what, error);
  let whole = false;
  /** The list shown may be a part of the cached one: from the restore's start until the cached list is under it or a walk ends. */
  let partial = false;
  let restoredWhole: (found: boolean) => void = () => undefined;
  const restored = new Promise<boolean>((resolve) => (restoredWhole = resolve));
  const restoreRest = async () => {
    const cached = await env.offline.readSessions().catch(failed("reading the cached chat list failed"));
    // One assignment: the sorted list and the rows are made once, for the whole list.
    const under = cached !== undefined && !loaded.value;
    if (under) list.value = underShown(cached, list.value);
    // After the server's pages, the cached list is not put under them: the list shown stays the walk's part until
    // its end (unless the walk has ended already).
    partial = partial && cached !== undefined && !under;
    whole = true;
    restoredWhole(cached !== undefined);
  };
  return {
    /** `whole`: the list is the server's whole list (a walk's end). */
    persist(options: { whole?: boolean } = {}) {
      if (options.whole) partial = false;
      if (partial || (!whole && !loaded.value)) return;
      void env.offline
        .writeSessions(list.value, sorted.value.slice(0, HEAD_CHATS))
        .catch(failed("caching the chat list failed"));
    },
    async restore() {
      partial = true;
      const head = await env.offline.readSessionsHead().catch(failed("reading the cached chat list failed"));
      if (head && !loaded.value) list.value = head;
      // After the paint, or soon in a page that paints nothing: the connection waits for the whole list.
      afterNextPaint(() => void restoreRest());
    },
    restoredWhole: () => restored,
  };
}

/**
 * The cached list with the chats shown put over it: a newer copy shown stays, a chat only shown is added; on a tie the
 * cached copy stays (the head shown was written with it, the same chat), so the next write of the list rewrites no
 * record for it (list-records.ts). Looked up among the few shown chats: a Map of the ten thousand cached ones took
 * milliseconds of a throttled phone's thread, in the task that ends the whole list's read.
 */
function underShown(cached: readonly SessionSummary[], shown: readonly SessionSummary[]): SessionSummary[] {
  const over = new Map(shown.map((chat) => [chat.id, chat]));
  const merged = cached.map((chat) => {
    const newer = over.get(chat.id);
    if (newer === undefined) return chat;
    over.delete(chat.id);
    return chat.updated_at < newer.updated_at ? newer : chat;
  });
  return [...merged, ...over.values()];
}

/** A session read in pages (chat.ts readHead) holds a part of its messages: its count is `messages_total`. */
function countOf(session: Session): { message_count?: number } {
  return typeof session.messages_total === "number" ? { message_count: session.messages_total } : {};
}
