// Time as an input. Every delay the library decides (poll backoff, retry) goes through the wire contract's Clock
// (client/wire/clock.ts, the shape server and bridge take time in too), so tests drive time by hand instead of
// sleeping. A timer is started with `startTimer` and its handle is the function that cancels it.
import { after, type Clock } from "../wire/clock.ts";

/** The library's name for its clock option: the wire contract's Clock. */
export type Timers = Clock;

/** A started timer: calling it cancels the timer (nothing when it already ran). */
export type TimerHandle = () => void;

/** Runs `callback` after `ms` on the clock. */
export function startTimer(clock: Clock, callback: () => void, ms: number): TimerHandle {
  return after(clock, ms, callback);
}

/** Cancels a timer, if there is one. */
export function cancelTimer(handle: TimerHandle | undefined): void {
  handle?.();
}

const systemTimer = (ms: number, task: () => void): (() => void) => {
  const handle = globalThis.setTimeout(task, ms);
  return () => globalThis.clearTimeout(handle);
};

export const systemTimers: Clock = {
  now: () => Date.now(),
  timer: systemTimer,
  sleep: (ms, signal) => sleepOn(systemTimer, ms, signal),
};

/** Delays for retrying HTTP after a failure: quick at first (a blip), then a steady 5 s. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 5000];

export function backoffDelay(delays: readonly number[], attempt: number): number {
  return delays[Math.min(attempt, delays.length - 1)] ?? 1000;
}

/** Resolves after `ms` on `timers`; rejects with the signal's reason when it aborts first. */
export function sleep(timers: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return timers.sleep(ms, signal);
}

/** A sleep built from a clock's own timer: what systemTimers and ManualTimers sleep with. */
function sleepOn(timer: NonNullable<Clock["timer"]>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = timer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The bridge link's heartbeat (transport/liveness.ts): a ping after this much silence, and the link is dead when
 * nothing answers within the timeout. A link that dies is noticed within interval + timeout = 10 s (at most 15 s).
 */
export const DEFAULT_LIVENESS = { intervalMs: 5000, timeoutMs: 5000 } as const;

/** The first reconnect attempts (each drawn from its upper half): a bridge restart is seen within 1 s. */
const QUICK_RECONNECT_MS: readonly number[] = [50, 100, 250, 500];
/** Attempts made at most ~1 s apart in all: about 15 s of a bridge restarting. */
const QUICK_TRIES = 18;
const SLOW_FIRST_MS = 2000;
/** The longest wait between two attempts: a bridge back after a long outage is found within 5 s. */
export const RECONNECT_MAX_MS = 5000;

/**
 * The bridge socket's reconnect schedule for attempt `tries` (1 = the first after a drop): about 50, 100, 250,
 * 500 ms, then 0.75-1 s until ~15 s have passed, so an app is live within 1 s of a restarted bridge answering; then
 * a jittered backoff (2, 4, then 5 s caps). Every delay is drawn from the upper half of its step (`random` is
 * injected for tests), so apps that lost the bridge together do not come back in step (10,000 sockets spread over
 * half a step instead of arriving in the same millisecond), and none waits more than RECONNECT_MAX_MS.
 */
export function reconnectDelayMs(tries: number, random: () => number = Math.random): number {
  const quick = QUICK_RECONNECT_MS[tries - 1];
  if (quick !== undefined) return Math.round(quick / 2 + (quick / 2) * random());
  if (tries <= QUICK_TRIES) return Math.round(750 + 250 * random());
  const cap = Math.min(RECONNECT_MAX_MS, SLOW_FIRST_MS * 2 ** (tries - QUICK_TRIES - 1));
  return Math.round(cap / 2 + (cap / 2) * random());
}

/** Timers a test moves by hand: `advance(ms)` runs what falls due, in order. */
export class ManualTimers implements Clock {
  private current = 1_700_000_000_000;
  private nextHandle = 1;
  private readonly due = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.current;
  }

  timer(ms: number, task: () => void): () => void {
    const handle = this.nextHandle++;
    this.due.set(handle, { at: this.current + Math.max(0, ms), callback: task });
    return () => this.due.delete(handle);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn((wait: number, task: () => void) => this.timer(wait, task), ms, signal);
  }

  /** How many timers are set and not yet run or cleared (a test waits for the one it means to release). */
  get pending(): number {
    return this.due.size;
  }

  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      const next = [...this.due]
        .filter(([, timer]) => timer.at <= end)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      this.due.delete(next[0]);
      this.current = next[1].at;
      next[1].callback();
    }
    this.current = end;
  }
}
