// Time as an input. Every delay the library decides (poll backoff, retry) goes through these, so tests drive
// time by hand instead of sleeping.
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Delays for retrying HTTP after a failure: quick at first (a blip), then a steady 5 s. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 5000];

export function backoffDelay(delays: readonly number[], attempt: number): number {
  return delays[Math.min(attempt, delays.length - 1)] ?? 1000;
}
