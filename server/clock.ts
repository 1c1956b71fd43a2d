// Time as the server sees it: the one clock-and-timers interface of the server process. Everything that decides a
// delay, TTL or pace takes a Clock, so tests inject their own and never sleep (docs/server.md "Time");
// systemClock is the real one.
import { setTimeout as delay } from "node:timers/promises";

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, signal ? { signal } : undefined);
  },
};

export interface Deadline {
  /** Aborts when the time is up on the clock, or when the parent signal aborts. */
  signal: AbortSignal;
  /** Ends the clock's sleep early: call it once the wait is over, so no timer outlives it. */
  dispose(): void;
}

/** AbortSignal.timeout(ms) on the injected clock, also ending with `parent`. */
export function deadlineAfter(clock: Clock, ms: number, parent: AbortSignal): Deadline {
  const deadline = new AbortController();
  const sleeping = new AbortController();
  const end = () => {
    sleeping.abort();
    deadline.abort();
  };
  if (parent.aborted) end();
  else parent.addEventListener("abort", end, { once: true });
  clock.sleep(ms, sleeping.signal).then(end, () => undefined);
  return {
    signal: deadline.signal,
    dispose: () => {
      parent.removeEventListener("abort", end);
      sleeping.abort();
    },
  };
}
