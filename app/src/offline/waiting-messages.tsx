// The messages of this chat waiting in the outbox (docs/app.md "Outbox"), under its transcript: each as the user's
// bubble with "Waiting to send" (or "Sending…" once it is the server's, or "Not sent" with the server's reason when it
// was refused as it is), and while it is not being sent, Edit and Cancel. A new chat's page follows the chat once the
// outbox has created it.
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
  // A refused message is its writer's again: edited, it waits to be sent (docs/app.md OB14).
  const editable = item.state !== "sending";
  if (draft !== undefined && editable)
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
        <span class="waiting-state">{STATE_TEXT[item.state](item)}</span>
        {editable && (
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

const STATE_TEXT: Record<WaitingView["state"], (item: WaitingView) => string> = {
  waiting: () => "Waiting to send",
  sending: () => "Sending…",
  refused: (item) => `Not sent: ${item.problem ?? "the server refused it."}`,
};
