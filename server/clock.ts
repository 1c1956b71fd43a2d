// Time as the server sees it: the wire contract's Clock (client/wire/clock.ts), the one shape server, bridge and
// client take time in. Everything that decides a
// delay, TTL or pace takes a Clock, so tests inject their own and never sleep (docs/server.md "Time");
// systemClock is the real one.
import { setTimeout as delay } from "node:timers/promises";

import type { Clock } from "../client/wire/clock.ts";

export type { Clock };

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
