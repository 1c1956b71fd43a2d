// The real clock. Tests inject their own wherever delays, TTLs or pacing are decided (DESIGN.md conventions).
import { setTimeout as delay } from "node:timers/promises";
import type { Clock } from "./context.ts";

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, signal ? { signal } : undefined);
  },
};
