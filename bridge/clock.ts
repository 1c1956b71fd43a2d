// Time as the bridge sees it: the wire contract's Clock (client/wire/clock.ts), the one shape server, bridge and
// client take time in, and the bridge's real one. Everything that decides a delay, a window or a pace
// takes it: the idle sweep, the pairing wait, device sightings, the rate limiters and the log budget. Tests inject
// a clock they move by hand (test/bridge/manual-clock.ts), so nothing waits for real seconds.
import { setTimeout as delay } from "node:timers/promises";

import { after, type Clock } from "../client/wire/clock.ts";

export { after, type Clock };

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
