// What the controls under a chat's messages do, over the paired client: edit-and-resend, delete, copy, regenerate
// (optionally with another model for that one answer), and the version switch (docs/app.md "Chat").
import { useMemo } from "preact/hooks";
import { signal } from "@preact/signals";
import type { MessageActions } from "../components/message-item.tsx";
import type { AppStore } from "../state/store.ts";

export function useMessageActions(
  store: AppStore,
  session_id: string | undefined,
  models: readonly string[],
): MessageActions {
  const current = store.connection.paired.value;
  const editing = useMemo(() => signal<number | undefined>(undefined), [session_id]);
  return useMemo(() => {
    const copy = (text: string) => store.env.copyText(text);
    if (!current || !session_id) return { copy };
    const { client } = current;
    return {
      copy,
      models,
      editing,
      stopEditing: () => void (editing.value = undefined),
      edit: async (index, content) => void (await client.resendMessage(session_id, index, content)),
      remove: async (index) => void (await client.deleteMessages(session_id, [index])),
      regenerate: async (model) => void (await client.regenerate(session_id, model ? { model } : {})),
      switchVersion: async (index, version) =>
        store.sessions.upsert(await client.switchVersion(session_id, index, version)),
    };
  }, [session_id, current, models, editing]);
}
