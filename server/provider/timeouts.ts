// Timers on the injected Clock. `timeout` bounds the pre-stream phase (connect, response headers, and the first
// body byte of a stream; the whole body of a non-streamed reply). Once a stream has begun, an idle watchdog bounds
// the silence between received bytes instead, so a stalled stream ends but a long healthy one does not.
import type { Clock } from "../clock.ts";

/**
 * Calls `fn` after `ms` on the clock; returns the cancel function. Every timer goes through the injected clock's
 * abortable sleep, whichever clock it is, so the clock alone decides time (no special case for the real one).
 */
function arm(clock: Clock, ms: number, fn: () => void): () => void {
  const stopper = new AbortController();
  clock.sleep(ms, stopper.signal).then(
    () => {
      if (!stopper.signal.aborted) fn();
    },
    () => undefined,
  );
  return () => stopper.abort();
}

/** Calls `onExpire` after `ms` unless cancelled first. */
export class Deadline {
  private readonly disarm: () => void;
  private cancelled = false;
  expired = false;

  constructor(clock: Clock, ms: number, onExpire: () => void) {
    this.disarm = arm(clock, ms, () => {
      if (this.cancelled) return;
      this.expired = true;
      onExpire();
    });
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.disarm();
  }
}

/**
 * Fires `onIdle` when nothing has been received for `idleMs`. One timer per idle period, not one per chunk:
 * touch() only records the time, which keeps the per-chunk cost to one clock read.
 */
export class IdleWatchdog {
  private last: number;
  private disarm: () => void;
  private stopped = false;
  fired = false;

  constructor(
    private readonly clock: Clock,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.last = clock.now();
    this.disarm = arm(clock, idleMs, this.check);
  }

  touch(): void {
    this.last = this.clock.now();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.disarm();
  }

  private readonly check = (): void => {
    if (this.stopped) return;
    const idle = this.clock.now() - this.last;
    if (idle >= this.idleMs) {
      this.fired = true;
      this.onIdle();
      return;
    }
    this.disarm = arm(this.clock, this.idleMs - idle, this.check);
  };
}
