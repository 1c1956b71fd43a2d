// docs/client.md "Listen": typed listeners, a session filter, narrowing a raw event, and loading a session.
import { isEvent, type ChatClient } from "../../client/index.ts";

export function follow(client: ChatClient, sessionId: string): () => void {
  // A typed listener hears only events that match the `partial` schema; `event.message.content` is a string.
  const offPartial = client.on("partial", (event) => process.stdout.write(event.message.content), {
    session_id: sessionId,
  });
  // "*" hears every event (unknown types included): narrow before using type-specific fields.
  const offAll = client.on("*", (event) => {
    if (isEvent(event, "request_completed")) console.log(`\nrequest ${event.request_id} done`);
  });
  const offReset = client.onReset(() => console.log("events were skipped (cursor expired): reload your views"));
  return () => {
    offPartial();
    offAll();
    offReset();
  };
}

export async function openSession(client: ChatClient, sessionId: string): Promise<() => void> {
  const messages: string[] = [];
  // The snapshot, the events already delivered after its cursor, and a listener for what comes next,
  // registered at exactly the snapshot's cursor: nothing missed, nothing applied twice.
  const loaded = await client.loadMessages(sessionId, (event) => {
    if (isEvent(event, "message_appended")) messages.push(event.content);
  });
  messages.push(...loaded.messages.map((message) => message.content));
  for (const event of loaded.events) if (isEvent(event, "message_appended")) messages.push(event.content);
  return loaded.dispose;
}
