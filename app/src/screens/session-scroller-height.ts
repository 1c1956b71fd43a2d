// The chat list's scroller before it is measured (docs/app.md "Start-up", SU4, SU16). The virtualizer renders the
// rows that fit its scroller's height; until its first layout effect measures the scroller it takes the size given
// here. The window's height alone is more than the scroller's (the top bar and the list's head take their part), so
// the measure found rows past the screen and the list rendered again, to drop them, before its first paint. The space
// the window has beside the scroller is learnt on this device and kept for its next start.
import { keptSize } from "../state/kept-size.ts";

export const SCROLLER_SPACE_KEY = "chat-relay.session-scroller-space-px";

/** The window's height the scroller does not take: at most the window (a taller space is kept by no layout). */
const space = keptSize(SCROLLER_SPACE_KEY, 0, 4000);

/** A scroller lower than this is not one laid out for the list (0 in a page not laid out): not learnt from. */
const MIN_SCROLLER_PX = 24;

/**
 * The scroller's size until it is measured: the window's, less the space an earlier start measured beside it; the
 * window's whole height where that leaves less than a scroller (a space kept at another window's size), so the first
 * render still holds rows.
 */
export function scrollerRect(): { width: number; height: number } {
  const height = window.innerHeight - (space.read() ?? 0);
  return { width: window.innerWidth, height: height >= MIN_SCROLLER_PX ? height : window.innerHeight };
}

/** The scroller measured `height` px (the virtualizer's rounded measure): the space beside it kept for the next start. */
export function keepScrollerHeight(height: number): void {
  if (height >= MIN_SCROLLER_PX && height <= window.innerHeight) space.keep(window.innerHeight - height);
}
