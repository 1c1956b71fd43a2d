// The controls under one chat's messages (docs/app.md "The chat controller"): regenerate, switch a version, edit and
// resend, delete, and which message is being edited. Part of the chat controller (chat.ts), which spreads them into
// the Chat it makes; each action rejects with the server's reason, which the message toolbar shows.
import { signal, type ReadonlySignal } from "@preact/signals";
import type { Message } from "../../../client/index.ts";
import type { Chat } from "./chat.ts";
import type { TranscriptView } from "./chat-feed.ts";
import type { AppStore } from "./store.ts";

export type MessageActions = Pick<Chat, "regenerate" | "switchVersion" | "edit" | "remove"> &
  Pick<Chat, "editing" | "startEditing" | "editLast" | "stopEditing">;

/** The controls under the messages; each rejects with the server's reason, which the toolbar shows. */
export function messageActions(
  store: AppStore,
  session_id: string | undefined,
  view: ReadonlySignal<TranscriptView>,
): MessageActions {
  const editing = signal<number | undefined>(undefined);
  /** The paired client, for a saved chat; every message action needs both. */
  const saved = () => {
    const client = store.connection.paired.value?.client;
    if (!client || !session_id) throw new Error("this chat is not saved on a paired device.");
    return { client, id: session_id };
  };
  return {
    editing,
    async regenerate(model) {
      const { client, id } = saved();
      await client.regenerate(id, model ? { model } : {});
    },
    async switchVersion(index, version) {
      const { client, id } = saved();
      store.sessions.upsert(await client.switchVersion(id, index, version));
    },
    async edit(index, content) {
      const { client, id } = saved();
      await client.resendMessage(id, index, content);
      if (editing.value === index) editing.value = undefined;
    },
    async remove(index) {
      const { client, id } = saved();
      await client.deleteMessages(id, [index]);
    },
    startEditing: (index) => void (editing.value = index),
    editLast() {
      const { messages, start } = view.value.transcript;
      const lastUser = lastUserIndex(messages);
      if (lastUser < 0 || !session_id) return false;
      editing.value = start + lastUser;
      return true;
    },
    stopEditing: () => void (editing.value = undefined),
  };
}

const lastUserIndex = (messages: readonly Message[]) => messages.findLastIndex((message) => message.role === "user");
