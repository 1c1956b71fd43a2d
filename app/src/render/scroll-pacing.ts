// What a fast scroll mounts, paced. A fling through a long chat mounts a screen of rows each frame, and mounting each
// in full (its markdown through markdown-it and DOMPurify, its toolbar of icon buttons) made frames of 50-100 ms on a
// throttled phone. So the rows mounted within one frame share a budget: MARKDOWN_PER_FRAME messages rendered from
// markdown and TOOLBARS_PER_FRAME toolbars (counts, not times: what a frame mounts is the same on every device).
// Within it a row mounts in full, as before; past it, its message shows its text as written (markdown-view.tsx) and
// its toolbar an empty bar of the same height (message-toolbar.tsx), and both are completed once the page has been
// still for SETTLE_MS, a few at a time in slices of idle time, oldest first. Settled, the list's virtualizer keeps the
// rows above the reader in place when a completed row changes height (while it scrolls up, it does not: hence waiting
// for the page to be still). A row scrolled away before its turn costs nothing.
import { useEffect, useState } from "preact/hooks";

/** How long the page must have been still before deferred parts are completed: longer than the virtualizer's
 *  scrolling state (150 ms), so a row that changes height above the reader is compensated, not jumped over. */
export const SETTLE_MS = 200;
/** Messages whose markdown is rendered within one frame (one not yet in the renderer's cache); the rest wait. */
const MARKDOWN_PER_FRAME = 3;
/** Toolbars mounted in full within one frame; the rest wait. */
const TOOLBARS_PER_FRAME = 2;
/** What one slice of idle time may do: this long, and this many jobs (a job's render follows it in the same task). */
const SLICE_MS = 4;
const SLICE_JOBS = 4;

type Job = () => void;

const waiting = new Set<Job>();
let lastScroll = Number.NEGATIVE_INFINITY;
let planned = false;
let listening = false;
let budgetOpen = false;
let markdownRendered = 0;
let toolbarsMounted = 0;

function listen(): void {
  if (listening || typeof window === "undefined") return;
  listening = true;
  // Scroll events do not bubble; capturing at the window sees every scroller's.
  window.addEventListener("scroll", () => void (lastScroll = performance.now()), { capture: true, passive: true });
}

/** Opens this frame's budget: it is spent until the next animation frame (a throttled frame is longer than 16 ms). */
function thisFrame(): void {
  listen();
  if (budgetOpen) return;
  budgetOpen = true;
  const close = () => {
    budgetOpen = false;
    markdownRendered = 0;
    toolbarsMounted = 0;
  };
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(close);
  else setTimeout(close, 16);
}

/** `render()` when this frame's markdown budget has room left, else undefined (the caller defers with whenSettled). */
export function withinBudget<T>(render: () => T): T | undefined {
  thisFrame();
  return markdownRendered++ < MARKDOWN_PER_FRAME ? render() : undefined;
}

/** Whether a row's toolbar may mount in full now: true at once within this frame's budget, else once settled. */
export function useToolbarReady(): boolean {
  const [ready, setReady] = useState(() => (thisFrame(), toolbarsMounted++ < TOOLBARS_PER_FRAME));
  useEffect(() => (ready ? undefined : whenSettled(() => setReady(true))), []);
  return ready;
}

/**
 * Runs `job` once the page has been still for SETTLE_MS, in a slice of idle time with other jobs; returns a cancel (a
 * row that left the screen before its turn does nothing).
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
  let done = 0;
  for (const job of waiting) {
    waiting.delete(job);
    job();
    if (++done >= SLICE_JOBS || performance.now() >= end) break;
  }
  plan(0);
}
