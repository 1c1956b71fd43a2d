// Who wrote a user message, shown above it when more than one person wrote in the chat (a chat shared with `write`):
// the server marks each device-sent user message with `metadata.sender {person_id, name}`.
import type { Message } from "../../../client/index.ts";
import { useChat } from "../state/chat-context.ts";

export function senderOf(message: Message): { person_id: string; name: string } | undefined {
  const sender = message.metadata?.sender as { person_id?: unknown; name?: unknown } | undefined;
  if (typeof sender?.person_id !== "string" || typeof sender.name !== "string") return undefined;
  return { person_id: sender.person_id, name: sender.name };
}

/** How many people wrote the chat's user messages; counted once per transcript, not once per message shown. */
const writerCounts = new WeakMap<readonly Message[], number>();
function writerCount(messages: readonly Message[]): number {
  let count = writerCounts.get(messages);
  if (count === undefined) {
    const ids = new Set<string>();
    for (const message of messages) if (message.role === "user") ids.add(senderOf(message)?.person_id ?? "");
    writerCounts.set(messages, (count = ids.size));
  }
  return count;
}

export function SenderName({ message }: { message: Message }) {
  const chat = useChat();
  const sender = senderOf(message);
  if (!sender || writerCount(chat.view.value.transcript.messages) < 2) return null;
  return <span class="message-sender">{sender.name}</span>;
}
