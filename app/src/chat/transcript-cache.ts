// The last loaded messages of the most recently opened chats, kept in localStorage so an offline app can still
// show them (read-only). Bounded: a few chats, their last messages.
import { z } from "zod";
import { messageSchema, type Message } from "../../../client/index.ts";
import { readStored, writeStored } from "../state/local-store.ts";

const KEY = "chat-relay.transcripts";
const MAX_SESSIONS = 10;
const MAX_MESSAGES = 60;

const cacheSchema = z.array(z.object({ session_id: z.string(), messages: z.array(messageSchema) }));

export function cachedMessages(session_id: string): Message[] | undefined {
  return readStored(KEY, cacheSchema)?.find((entry) => entry.session_id === session_id)?.messages;
}

export function cacheMessages(session_id: string, messages: readonly Message[]): void {
  const others = (readStored(KEY, cacheSchema) ?? []).filter((entry) => entry.session_id !== session_id);
  writeStored(KEY, [{ session_id, messages: messages.slice(-MAX_MESSAGES) }, ...others].slice(0, MAX_SESSIONS));
}
