// Time as the bridge sees it: the one clock-and-timers interface of the bridge process, the same shape as the
// server's (server/clock.ts; the two processes share no code). Everything that decides a delay, a window or a pace
// takes it: the idle sweep, the pairing wait, device sightings, the rate limiters and the log budget. Tests inject
// a clock they move by hand (test/bridge/manual-clock.ts), so nothing waits for real seconds.
import { setTimeout as delay } from "node:timers/promises";

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Runs `task` once after `ms`; the returned function cancels it. Optional: `after` builds it from `sleep` for a
   * clock without it (a test's). The real clock has its own because a sleep's AbortController, and the AbortError
   * every cancel creates, cost more than the rest of a relayed call on the bridge (one timeout per call).
   */
  timer?(ms: number, task: () => void): () => void;
}

/**
 * The real clock. Its sleeps do not hold the process open (`ref: false`): the listening socket does, and a bridge
 * that has closed lets its process end.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, { ref: false, ...(signal ? { signal } : {}) });
  },
  timer: (ms, task) => {
    const handle = setTimeout(task, ms);
    handle.unref();
    return () => clearTimeout(handle);
  },
};

/** Runs `task` once `ms` have passed on the clock; the returned function cancels it. */
export function after(clock: Clock, ms: number, task: () => void): () => void {
  if (clock.timer) return clock.timer(ms, task);
  const cancel = new AbortController();
  clock.sleep(ms, cancel.signal).then(task, () => undefined);
  return () => cancel.abort();
}

/**
 * Runs `task` every `ms` on the clock until `signal` aborts. `late` is how far past its due time this round woke:
 * a task may skip a round the event loop (or the clock) jumped over.
 */
export function every(clock: Clock, ms: number, task: (late: number) => void, signal: AbortSignal): void {
  const round = () => {
    const due = clock.now() + ms;
    clock.sleep(ms, signal).then(
      () => {
        round();
        task(clock.now() - due);
      },
      () => undefined,
    );
  };
  round();
}
