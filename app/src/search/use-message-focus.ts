// The chat side of opening a search result: once the transcript holds the result's message, scroll it into view
// and highlight it briefly. The focus waits in the store until the rows include that message (the chat may still
// be loading), and is used once.
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { useStore } from "../state/store.ts";

/** How long the opened message keeps its highlight (the CSS animation fades it within this). */
const HIGHLIGHT_MS = 2500;

/** Row key of a message in the transcript list (message-list.tsx keys message rows `m<index>`). */
export const messageRowKey = (index: number): string => `m${index}`;

/**
 * Scrolls to the focused message once it is among `rows` (after the list's own follow-the-bottom effect, so call
 * this hook after it) and answers the key of the row to highlight, if any.
 */
export function useMessageFocus(
  rows: ReadonlyArray<{ key: string }>,
  scrollTo: (rowIndex: number) => void,
  leaveBottom: () => void,
): string | undefined {
  const { search, router } = useStore();
  const focus = search.focus.value;
  const route = router.route.value;
  const [highlighted, setHighlighted] = useState<string | undefined>();
  useLayoutEffect(() => {
    if (!focus || route.name !== "chat" || route.session_id !== focus.session_id) return;
    const key = messageRowKey(focus.message_index);
    const rowIndex = rows.findIndex((row) => row.key === key);
    if (rowIndex < 0) return;
    // Reading an older message: stop following the bottom so a streaming reply does not pull the view away.
    leaveBottom();
    scrollTo(rowIndex);
    setHighlighted(key);
    search.clearFocus();
  }, [focus, rows]);
  useEffect(() => {
    if (!highlighted) return;
    const timer = setTimeout(() => setHighlighted(undefined), HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [highlighted]);
  return highlighted;
}
