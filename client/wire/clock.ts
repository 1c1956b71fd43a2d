// Time as an input, the one shape server, bridge and client take it in (docs/server.md "Time"): everything that
// decides a delay, a window or a pace takes a Clock, so tests move their own by hand and never sleep. Each process
// has its real one (server/clock.ts, bridge/clock.ts, client/util/timers.ts), built on its platform's timers.
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects (with the signal's reason) when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Runs `task` once after `ms`; the returned function cancels it. Optional: `after` builds it from `sleep` for a
   * clock without it. A real clock has its own because a sleep's AbortController, and the AbortError every cancel
   * creates, cost more than the rest of a relayed call on the bridge (one timeout per call).
   */
  timer?(ms: number, task: () => void): () => void;
}

/** Runs `task` once `ms` have passed on the clock; the returned function cancels it. */
export function after(clock: Clock, ms: number, task: () => void): () => void {
  if (clock.timer) return clock.timer(ms, task);
  const cancel = new AbortController();
  clock.sleep(ms, cancel.signal).then(task, () => undefined);
  return () => cancel.abort();
}
