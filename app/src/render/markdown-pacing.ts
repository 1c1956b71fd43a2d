// When a message's markdown is rendered. Rendering it (markdown-it, then DOMPurify) is the costliest part of mounting a
// row: a fast scroll through a long chat mounts a screen of rows each frame, and rendering all of them at once made
// frames of 50-100 ms on a throttled phone. So the messages mounted in one frame share a budget (BUDGET_MS): within
// it they render at once, as before; past it a message shows its text as written (markdown-view.tsx) and its markdown
// is rendered once the page has been still for a moment (SETTLE_MS), in slices of a few milliseconds of idle time,
// oldest request first. Settled, the list's virtualizer keeps the rows above the reader in place when an upgraded row
// changes height (while it scrolls up, it does not).

/** How long the page must have been still before deferred markdown is rendered: longer than the virtualizer's
 *  scrolling state (150 ms), so a row that changes height above the reader is compensated, not jumped over. */
export const SETTLE_MS = 200;
/** The time one slice may spend rendering (ms): well under a frame, even on a throttled phone. */
const SLICE_MS = 4;

/** Rendering time the messages mounted within one frame (FRAME_MS) may spend before the rest wait (ms). */
const BUDGET_MS = 6;
const FRAME_MS = 16;

type Job = () => void;

let frameStart = Number.NEGATIVE_INFINITY;
let spent = 0;

/** `render()` when this frame's budget has room left, else undefined (the caller defers it with whenSettled). */
export function withinBudget<T>(render: () => T): T | undefined {
  listen();
  const start = performance.now();
  if (start - frameStart >= FRAME_MS) {
    frameStart = start;
    spent = 0;
  }
  if (spent >= BUDGET_MS) return undefined;
  const result = render();
  spent += performance.now() - start;
  return result;
}

const waiting = new Set<Job>();
let lastScroll = Number.NEGATIVE_INFINITY;
let planned = false;
let listening = false;

function listen(): void {
  if (listening || typeof window === "undefined") return;
  listening = true;
  // Scroll events do not bubble; capturing at the window sees every scroller's.
  window.addEventListener("scroll", () => void (lastScroll = performance.now()), { capture: true, passive: true });
}

/**
 * Runs `job` once the page has settled, in a slice of idle time with other jobs; returns a cancel (a row that left the
 * screen before its turn renders nothing).
 */
export function whenSettled(job: Job): () => void {
  listen();
  waiting.add(job);
  plan(0);
  return () => void waiting.delete(job);
}

function plan(delay: number): void {
  if (planned || waiting.size === 0) return;
  planned = true;
  setTimeout(() => (typeof requestIdleCallback === "function" ? requestIdleCallback(slice) : slice()), delay);
}

function slice(): void {
  planned = false;
  const still = performance.now() - lastScroll;
  if (still < SETTLE_MS) return plan(SETTLE_MS - still);
  const end = performance.now() + SLICE_MS;
  for (const job of waiting) {
    waiting.delete(job);
    job();
    if (performance.now() >= end) break;
  }
  plan(0);
}
