// The chats: newest activity first, searchable by title, each with its agent and last activity; "New chat" on top.
// On phones it is the home screen; on wide screens the sidebar beside the open chat. Its rows are virtualized
// (session-rows.tsx): ten thousand chats put a screenful of rows in the page.
import { useState } from "preact/hooks";
import type { SessionSummary } from "../../../client/index.ts";
import { hrefOf } from "../state/router.ts";
import { searchSessions, titleOf } from "../state/sessions.ts";
import { useStore } from "../state/store.ts";
import { relativeTime } from "../state/time.ts";
import { PIN_PATH } from "../components/icon-button.tsx";
import { SessionRows } from "./session-rows.tsx";
import { SharedBy } from "../people/shared-by.tsx";
import { startedOffline, WaitingChats } from "../offline/waiting-chats.tsx";

export function SessionList({ activeId }: { activeId?: string }) {
  const { sessions, outbox } = useStore();
  const [query, setQuery] = useState("");
  const list = searchSessions(sessions.sorted.value, query);
  // Chats started offline are listed above (WaitingChats): the list is not empty then.
  const emptyNote = query
    ? "No chat matches."
    : startedOffline(outbox.items.value).length > 0
      ? undefined
      : sessions.loaded.value || sessions.offline.value
        ? "No chats yet."
        : "Loading chats…";
  return (
    <nav class="session-list" aria-label="Chats">
      <div class="session-list-head">
        <a class="button primary new-chat" href={hrefOf({ name: "new_chat" })}>
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M12 5v14M5 12h14" />
          </svg>
          New chat
        </a>
        <input
          class="search"
          type="search"
          aria-label="Filter chats by title"
          placeholder="Filter by title"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </div>
      {sessions.offline.value && <p class="notice warning small">Offline: showing the chats loaded last time.</p>}
      <WaitingChats activeId={activeId} />
      {list.length === 0 ? (
        emptyNote && <p class="muted empty-list">{emptyNote}</p>
      ) : (
        <SessionRows
          list={list}
          render={(session) => <SessionRow session={session} active={session.id === activeId} />}
        />
      )}
    </nav>
  );
}

function SessionRow({ session, active }: { session: SessionSummary; active: boolean }) {
  const title = titleOf(session);
  return (
    <a
      class={`session-row ${active ? "active" : ""}`}
      href={hrefOf({ name: "chat", session_id: session.id })}
      aria-current={active ? "page" : undefined}
      title={title}
    >
      <span class="session-title">
        {session.pinned === true && (
          // A pinned chat says so in the list too (it sits first because of it), to the eye and to a screen reader.
          <svg class="pin-mark" viewBox="0 0 24 24" role="img" aria-label="Pinned">
            <path d={PIN_PATH} />
          </svg>
        )}
        {title}
      </span>
      <span class="session-meta">
        <span>{session.agent_id}</span>
        <SharedBy session={session} />
        <time dateTime={session.updated_at}>{relativeTime(session.updated_at)}</time>
      </span>
    </a>
  );
}
