// The messages of this chat waiting in the outbox (docs/app.md "Outbox"), under its transcript: each as the user's
// bubble with "Waiting to send" (or "Sending…" once it is the server's), and while it waits, Edit and Cancel. A new
// chat's page follows the chat once the outbox has created it.
import { useEffect, useState } from "preact/hooks";
import type { Chat } from "../state/chat.ts";
import { useStore } from "../state/store.ts";
import type { Outbox, WaitingView } from "./outbox.ts";

export function WaitingMessages({ chat }: { chat: Chat }) {
  const { outbox, router } = useStore();
  const items = outbox.items.value.filter(
    (item) => item.chat === chat.waitingKey || (chat.session_id !== undefined && item.session_id === chat.session_id),
  );
  // A chat started offline (its address #/new) becomes the real chat once the outbox has created it: the page moves
  // to it, where the message shows "Sending…" until its reply, then as the chat's own.
  const created = chat.session_id === undefined ? items.find((item) => item.session_id)?.session_id : undefined;
  useEffect(() => {
    if (created) router.navigate({ name: "chat", session_id: created }, { replace: true });
  }, [created, router]);
  if (items.length === 0) return null;
  return (
    <ol class="waiting-messages" aria-label="Waiting to send">
      {items.map((item) => (
        <WaitingMessage key={item.id} item={item} outbox={outbox} />
      ))}
    </ol>
  );
}

function WaitingMessage({ item, outbox }: { item: WaitingView; outbox: Outbox }) {
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const waiting = item.state === "waiting";
  if (draft !== undefined && waiting)
    return (
      <li class="message user waiting-message editing">
        <textarea
          aria-label="Edit waiting message"
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
        <div class="waiting-actions">
          <button type="button" onClick={() => void outbox.edit(item.id, draft).then(() => setDraft(undefined))}>
            Save
          </button>
          <button type="button" onClick={() => setDraft(undefined)}>
            Discard
          </button>
        </div>
      </li>
    );
  return (
    <li class="message user waiting-message" data-waiting={item.state}>
      <div class="bubble">{item.text}</div>
      <div class="waiting-actions">
        <span class="waiting-state">{waiting ? "Waiting to send" : "Sending…"}</span>
        {waiting && (
          <>
            <button type="button" aria-label="Edit waiting message" onClick={() => setDraft(item.text)}>
              Edit
            </button>
            <button type="button" aria-label="Cancel waiting message" onClick={() => void outbox.cancel(item.id)}>
              Cancel
            </button>
          </>
        )}
      </div>
    </li>
  );
}
