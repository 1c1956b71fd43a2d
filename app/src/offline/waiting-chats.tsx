// The chats started offline whose first message still waits in the outbox (docs/app.md "Outbox"), listed above the
// saved chats: the server has no such chat yet, so without them a reader who closed the app with one waiting would
// find it nowhere. Each opens its new chat's address (#/new/<client_session_id>), where its messages wait; once the
// outbox has created it, it is a saved chat in the list like any other.
import { hrefOf } from "../state/router.ts";
import { useStore } from "../state/store.ts";
import type { WaitingView } from "./outbox.ts";

export function WaitingChats({ activeId }: { activeId?: string }) {
  const { outbox } = useStore();
  const chats = startedOffline(outbox.items.value);
  if (chats.length === 0) return null;
  return (
    <ul class="waiting-chats" aria-label="Chats started offline">
      {chats.map(({ chat, first, count }) => (
        <li key={chat}>
          <a
            class={`session-row waiting-chat ${chat === activeId ? "active" : ""}`}
            href={hrefOf({ name: "new_chat", client_session_id: chat })}
            aria-current={chat === activeId ? "page" : undefined}
            title={first}
          >
            <span class="session-title">{first}</span>
            <span class="session-meta">
              <span>{count === 1 ? "Waiting to send" : `${count} messages waiting to send`}</span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}

/** Each chat the outbox has not created yet: its first message (as the title) and how many wait, in writing order. */
export function startedOffline(items: readonly WaitingView[]): Array<{ chat: string; first: string; count: number }> {
  const created = new Set(items.filter((item) => item.session_id !== undefined).map((item) => item.chat));
  const chats = new Map<string, { chat: string; first: string; count: number }>();
  for (const item of [...items].sort((a, b) => a.seq - b.seq)) {
    if (created.has(item.chat)) continue;
    const known = chats.get(item.chat);
    if (known) known.count += 1;
    else chats.set(item.chat, { chat: item.chat, first: item.text, count: 1 });
  }
  return [...chats.values()];
}
