// A reader at the end of a chat stays at its end when the transcript's box changes height: a card arriving under it
// (an approval, a session notification above the composer), the composer growing with a draft, the phone's keyboard.
// The list follows the bottom when its rows change (message-list.tsx); a change of the box alone moves no row and
// fires no scroll event, so the last lines slid under the card (docs/app.md L11).
import type { RefObject } from "preact";
import { useEffect } from "preact/hooks";
import { STICK_THRESHOLD } from "../state/chat.ts";

export function useEndKeptInView(scroller: RefObject<HTMLElement>, atBottom: () => boolean): void {
  useEffect(() => {
    const element = scroller.current;
    // A DOM without ResizeObserver (the unit tests' DOM) has no layout to keep either.
    if (!element || typeof ResizeObserver === "undefined") return;
    let height = element.clientHeight;
    const observer = new ResizeObserver(() => {
      if (element.clientHeight === height) return;
      // At the end as the box was: the reader's place is read a frame after a scroll, so a scroll the browser made in
      // the same frame (the rows' height corrected, the scroll clamped to it) may be read against the new, shorter box
      // and look like the reader left the end.
      const wasAtEnd = element.scrollHeight - element.scrollTop - height < STICK_THRESHOLD;
      height = element.clientHeight;
      if (atBottom() || wasAtEnd) element.scrollTop = element.scrollHeight;
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [scroller]);
}
