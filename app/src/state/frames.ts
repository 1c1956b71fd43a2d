// The page's frames and tasks, in one place (docs/app.md "Start-up" and "Long chats"): where renders are paced, work a
// paint does not need put after it (a chat's later requests, the whole cached list's read, the start's requests
// the first screen does not wait for), and work cut in tasks (the cached list's records, the list's walk).

/** Where renders are paced: the page's animation frames; outside a page, the next microtask. */
export interface Frames {
  now(): number;
  request(callback: () => void): number;
  cancel(id: number): void;
}

export function defaultFrames(): Frames {
  if (typeof requestAnimationFrame !== "function")
    return { now: () => performance.now(), request: (callback) => (queueMicrotask(callback), 1), cancel: () => {} };
  return {
    now: () => performance.now(),
    request: (callback) => requestAnimationFrame(callback),
    cancel: (id) => cancelAnimationFrame(id),
  };
}

/**
 * Runs `then` once the frame after this moment has been painted (a task queued in its animation callbacks), and
 * returns what cancels it: for a chat's requests that its first paint does not need.
 */
export function afterPaint(frames: Frames, then: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = frames.request(() => (timer = setTimeout(then)));
  return () => (frames.cancel(frame), clearTimeout(timer));
}

/** The longest the work waits for a paint: a page opened in the background paints nothing. */
const PAINT_WAIT_MS = 500;

/** Runs `work` once, after the next frame is painted, or after PAINT_WAIT_MS where no frame comes. */
export function afterNextPaint(work: () => void): void {
  let done = false;
  const once = () => void (done || ((done = true), work()));
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, PAINT_WAIT_MS);
}

/** Runs `work` when the page is next idle (`requestIdleCallback`); where there is none, in a task of its own. */
export function whenIdle(work: () => void): void {
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => work());
  else setTimeout(work, 0);
}

/** Waits for the next task, so the work before and after it are two tasks (a frame or an input may come between). */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  return scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Queues `work` as a task of its own after this one (as `queueMicrotask` queues a microtask); asked during a frame (a
 * scroll event, an animation callback), it runs after that frame's paint. Ahead of the page's other tasks where the
 * browser ranks them (`scheduler.postTask`). An error it throws is thrown as a timer's would be, not left as a
 * rejected promise.
 */
export function queueTask(work: () => void): void {
  type PostTask = (work: () => void, options: { priority: "user-blocking" }) => Promise<unknown>;
  const scheduler = (globalThis as { scheduler?: { postTask?: PostTask } }).scheduler;
  if (!scheduler?.postTask) return void setTimeout(work, 0);
  scheduler.postTask(work, { priority: "user-blocking" }).catch((error: unknown) =>
    setTimeout(() => {
      throw error;
    }),
  );
}
