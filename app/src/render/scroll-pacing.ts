// What a fast scroll mounts, paced. A fling through a long chat mounts a screen of rows each frame, and mounting each
// in full (its markdown through markdown-it and DOMPurify, its toolbar of icon buttons) made frames of 50-100 ms on a
// throttled phone. So the rows mounted within one frame share a budget: MARKDOWN_MS_PER_FRAME of markdown rendering
// (a time: messages differ in cost by orders of magnitude) and TOOLBARS_PER_FRAME toolbars (a count: a toolbar's cost
// is its mount, after the decision, and one toolbar costs about what another does).
// Within it a row mounts in full, as before; past it, its message shows its text as written (markdown-view.tsx) and
// its toolbar an empty bar of the same height (message-toolbar.tsx), and both are completed once the page has been
// still for SETTLE_MS, a few at a time in slices of idle time, oldest first. Settled, the list's virtualizer keeps the
// rows above the reader in place when a completed row changes height (while it scrolls up, it does not: hence waiting
// for the page to be still). A row scrolled away before its turn costs nothing.
// The rows of a frame take the budget in the order they mount (top to bottom), except where the list ranks them
// newest first (NewestRank: a chat opened at its end, where the last messages are the ones read first): there the
// newest rows take it, and the rest complete newest first.
// Before those, the rows themselves: a render that mounts more than ROWS_PER_FRAME rows of a scroll (a fling: a screen
// a frame) mounts them all as sketches (message-sketch.tsx: their text, nothing else), and so does a render once this
// frame's rows have taken ROWS_MS_PER_FRAME or numbered ROWS_PER_FRAME; a sketch becomes its full row once the page is
// still, its markdown and toolbar in the same step (Completing), so it changes height at most once. A row's markdown
// and toolbar are only part of its cost: its components, hooks and listeners are the rest.
import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { whenIdle } from "../state/frames.ts";

/** How long the page must have been still before deferred parts are completed: longer than the virtualizer's
 *  scrolling state (150 ms), so a row that changes height above the reader is compensated, not jumped over. */
export const SETTLE_MS = 200;
/**
 * How long the markdown rendered within one frame may take (messages not yet in the renderer's cache); once spent,
 * the rest wait. A time, not a count: a message's rendering costs from a fraction of a millisecond to many, and a
 * slower device renders fewer.
 */
const MARKDOWN_MS_PER_FRAME = 6;
/** How many of the rows ranked newest first render their markdown at once (NewestRank). */
const NEWEST_MARKDOWN = 3;
/**
 * How long the rows mounted within one frame may take before the next ones of a scroll mount as sketches: the time
 * from the frame's first row mounted (a row renders its whole content before the next row's turn).
 */
const ROWS_MS_PER_FRAME = 8;
/** Rows of a scroll mounted in full within one frame, however fast they were; a render mounting more is a fling. */
const ROWS_PER_FRAME = 2;
/** Toolbars mounted in full within one frame; the rest wait. */
const TOOLBARS_PER_FRAME = 2;
/** What one slice of idle time may do: this long, and this many jobs (a job's render follows it in the same task). */
const SLICE_MS = 4;
const SLICE_JOBS = 4;

/**
 * A row's place among the rows its list mounts newest first in this render (0: the newest), or undefined when the
 * rows take the frame's budget in the order they mount (message-list.tsx gives it).
 */
export const NewestRank = createContext<number | undefined>(undefined);

/**
 * True inside a row completed from its sketch once the page is still: its markdown renders and its toolbar mounts at
 * once, not paced again (a second deferral would change the row's height a second time).
 */
export const Completing = createContext(false);

type Job = () => void;

/** Waiting jobs; a ranked one (its row's NewestRank) goes before every unranked one, the lower rank first. */
const waiting = new Map<Job, number>();
let lastScroll = Number.NEGATIVE_INFINITY;
let planned = false;
let listening = false;
let budgetOpen = false;
/** Milliseconds of markdown rendered in this frame. */
let markdownSpent = 0;
let toolbarsMounted = 0;
/** When this frame's first row was mounted (its rows' budget), if one was. */
let rowsBegan: number | undefined;
let rowsMounted = 0;

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
    markdownSpent = 0;
    toolbarsMounted = 0;
    rowsBegan = undefined;
    rowsMounted = 0;
  };
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(close);
  else setTimeout(close, 16);
}

/**
 * `render()` while this frame's markdown time has room left (or, for a row ranked newest first, its rank is within
 * NEWEST_MARKDOWN), its time counted; else undefined (the caller defers with whenSettled).
 */
export function withinBudget<T>(render: () => T, rank?: number): T | undefined {
  thisFrame();
  if (rank === undefined ? markdownSpent >= MARKDOWN_MS_PER_FRAME : rank >= NEWEST_MARKDOWN) return undefined;
  const began = performance.now();
  try {
    return render();
  } finally {
    markdownSpent += performance.now() - began;
  }
}

/**
 * Whether a row mounting now mounts in full: a row ranked newest first always does (a chat opened at its end shows
 * its last messages whole); any other when its render mounts at most ROWS_PER_FRAME rows (`mounting`) and this frame's
 * rows are fewer than that and have taken less than ROWS_MS_PER_FRAME; else it mounts as a sketch, completed with
 * whenSettled.
 */
export function rowInFull(rank: number | undefined, mounting: number): boolean {
  thisFrame();
  if (rank !== undefined) return true;
  if (mounting > ROWS_PER_FRAME) return false;
  const now = performance.now();
  rowsBegan ??= now;
  return rowsMounted++ < ROWS_PER_FRAME && now - rowsBegan < ROWS_MS_PER_FRAME;
}

/** Whether a row's toolbar may mount in full now: true at once within this frame's budget, else once settled. */
export function useToolbarReady(): boolean {
  const rank = useContext(NewestRank);
  const completing = useContext(Completing);
  // A row ranked newest first has its turn when its rank is within the frame's count; any other while the count lasts.
  const [ready, setReady] = useState(() => {
    if (completing) return true;
    thisFrame();
    return rank === undefined ? toolbarsMounted++ < TOOLBARS_PER_FRAME : rank < TOOLBARS_PER_FRAME;
  });
  useEffect(() => (ready ? undefined : whenSettled(() => setReady(true), rank)), []);
  return ready;
}

/**
 * Runs `job` once the page has been still for SETTLE_MS, in a slice of idle time with other jobs (ranked ones first,
 * the lower rank first; the others in the order they came); returns a cancel (a row that left the screen before its
 * turn does nothing).
 */
export function whenSettled(job: Job, rank?: number): () => void {
  listen();
  waiting.set(job, rank ?? Number.POSITIVE_INFINITY);
  plan(0);
  return () => void waiting.delete(job);
}

function plan(delay: number): void {
  if (planned || waiting.size === 0) return;
  planned = true;
  setTimeout(() => whenIdle(slice), delay);
}

function slice(): void {
  planned = false;
  const still = performance.now() - lastScroll;
  if (still < SETTLE_MS) return plan(SETTLE_MS - still);
  const end = performance.now() + SLICE_MS;
  let done = 0;
  // A stable sort: unranked jobs keep the order they came in.
  const inTurn = [...waiting].sort(([, rank], [, other]) => (rank === other ? 0 : rank - other));
  for (const [job] of inTurn) {
    if (!waiting.has(job)) continue;
    waiting.delete(job);
    job();
    if (++done >= SLICE_JOBS || performance.now() >= end) break;
  }
  plan(0);
}
