// The prompt library in the composer (docs/app.md "Prompt library"): typing "/" at the start of an empty message
// opens the person's saved prompts, the text after "/" filters them by title, ↑/↓ choose, Enter or Tab inserts the
// prompt's text in place of what was typed, Escape closes. The list is fetched when it first opens.
import { useEffect, useState } from "preact/hooks";
import type { Prompt } from "../../../client/index.ts";
import { useStore } from "../state/store.ts";

export const PROMPT_LIST_ID = "prompt-picker";

export interface PromptPicker {
  /** Handles a key of the message box; true when the picker took it. */
  onKeyDown(event: KeyboardEvent): boolean;
  /** The open list (or nothing), placed above the message box. */
  element: preact.JSX.Element | null;
}

/** The filter typed after "/", or undefined when the message is not a "/" query. */
function queryOf(text: string): string | undefined {
  const match = /^\/([^\n]*)$/.exec(text);
  return match ? match[1]!.trim().toLowerCase() : undefined;
}

export function usePromptPicker(text: string, setText: (text: string) => void): PromptPicker {
  const { connection } = useStore();
  const client = connection.paired.value?.client;
  const [prompts, setPrompts] = useState<Prompt[] | undefined>();
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>();
  const query = queryOf(text);
  const open = query !== undefined && dismissed !== text;
  useEffect(() => {
    if (!open || !client) return;
    // Read again at each opening: a prompt saved in Settings since is there.
    client.listPrompts().then(setPrompts, () => setPrompts([]));
  }, [open && text === "/", client]);
  useEffect(() => setActive(0), [query]);
  const shown = open ? (prompts ?? []).filter((p) => p.title.toLowerCase().includes(query!)) : [];
  const insert = (prompt: Prompt) => {
    setDismissed(undefined);
    setText(prompt.text);
  };
  const onKeyDown = (event: KeyboardEvent): boolean => {
    if (!open || event.isComposing) return false;
    if (event.key === "Escape") return (setDismissed(text), event.preventDefault(), true);
    if (shown.length === 0) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : shown.length - 1;
      setActive((index) => (index + step) % shown.length);
    } else if (event.key === "Enter" || event.key === "Tab") insert(shown[Math.min(active, shown.length - 1)]!);
    else return false;
    event.preventDefault();
    return true;
  };
  if (!open) return { onKeyDown, element: null };
  const element = (
    <ul class="prompt-picker" id={PROMPT_LIST_ID} role="listbox" aria-label="Prompts">
      {prompts === undefined && <li class="muted">Loading prompts…</li>}
      {prompts !== undefined && shown.length === 0 && (
        <li class="muted">
          {prompts.length === 0 ? "No saved prompts: add some in Settings → Personal." : "No match."}
        </li>
      )}
      {shown.map((prompt, index) => (
        <li
          key={prompt.id}
          role="option"
          aria-selected={index === active}
          class={index === active ? "active" : undefined}
          onMouseDown={(event) => (event.preventDefault(), insert(prompt))}
        >
          <strong>{prompt.title}</strong>
          <span class="muted">{prompt.text.slice(0, 120)}</span>
        </li>
      ))}
    </ul>
  );
  return { onKeyDown, element };
}
