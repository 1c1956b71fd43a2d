// The chat list's row height, learnt on this device and kept for its next start (docs/app.md "Start-up", SU13). The
// virtualizer places a row at an estimate until the row is measured; when the estimate is off (60 px against the
// 62.4 a phone's rows measured), the first render's measures move every row and the list renders and lays out again
// before its first paint, on the cold open's path. A row's height follows the device's fonts and text size, so it is
// learnt rather than guessed: the height the top row measured is kept in localStorage, and the next start places its
// rows where they will measure.
import { keptSize } from "../state/kept-size.ts";

export const ROW_HEIGHT_KEY = "chat-relay.session-row-px";

/** Before this device measured a row: a title line and a meta line (.session-row's 56 px and its gap). */
export const ROW_ESTIMATE_PX = 60;

/** A height outside these is no row's (a page not laid out measures 0): neither kept nor read. */
const rowHeight = keptSize(ROW_HEIGHT_KEY, 24, 400);

/** The row height an earlier start kept, or the estimate. */
export function keptRowHeight(): number {
  return rowHeight.read() ?? ROW_ESTIMATE_PX;
}

/** The top row measured `size` px (the virtualizer's rounded measure): kept for the next start if it changed. */
export function keepRowHeight(size: number): void {
  rowHeight.keep(size);
}
