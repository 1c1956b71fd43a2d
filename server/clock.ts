// Time as the server sees it. Everything that decides a delay, TTL or pace takes a Clock, so tests inject their
// own and never sleep (DESIGN.md conventions); systemClock is the real one.
import { setTimeout as delay } from "node:timers/promises";

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, signal ? { signal } : undefined);
  },
};
