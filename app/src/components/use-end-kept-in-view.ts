// A reader at the end of a chat stays at its end when the transcript's box changes height: a card arriving under it
// (an approval, a session notification above the composer), the composer growing with a draft, the phone's keyboard.
// The list follows the bottom when its rows change (message-list.tsx); a change of the box alone moves no row and
// fires no scroll event, so the last lines slid under the card (docs/app.md L11).
import type { RefObject } from "preact";
import { useEffect } from "preact/hooks";

export function useEndKeptInView(scroller: RefObject<HTMLElement>, atBottom: () => boolean): void {
  useEffect(() => {
    const element = scroller.current;
    // A DOM without ResizeObserver (the unit tests' DOM) has no layout to keep either.
    if (!element || typeof ResizeObserver === "undefined") return;
    let height = element.clientHeight;
    const observer = new ResizeObserver(() => {
      if (element.clientHeight === height) return;
      height = element.clientHeight;
      if (atBottom()) element.scrollTop = element.scrollHeight;
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [scroller]);
}
