// Work a first paint does not need, put after it (docs/app.md "Start-up"): the whole cached list's read, and the
// start's requests the first screen does not wait for.

/** The longest the work waits for a paint: a page opened in the background paints nothing. */
const PAINT_WAIT_MS = 500;

/** Runs `work` once, after the next frame is painted, or after PAINT_WAIT_MS where no frame comes. */
export function afterNextPaint(work: () => void): void {
  let done = false;
  const once = () => void (done || ((done = true), work()));
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, PAINT_WAIT_MS);
}
