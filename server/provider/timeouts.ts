// Timers on the injected Clock. `timeout` bounds the pre-stream phase (connect, headers, and the first body
// byte of a stream; the whole body of a non-streamed reply). Once a stream has begun, an idle watchdog bounds
// the silence between received bytes instead, so a stalled stream ends but a long healthy one does not.
import type { Clock } from "../context.ts";

/** Calls `onExpire` after `ms` unless cancelled first. */
export class Deadline {
  private readonly stopper = new AbortController();
  expired = false;

  constructor(clock: Clock, ms: number, onExpire: () => void) {
    clock.sleep(ms, this.stopper.signal).then(
      () => {
        if (this.stopper.signal.aborted) return;
        this.expired = true;
        onExpire();
      },
      () => undefined,
    );
  }

  cancel(): void {
    this.stopper.abort();
  }
}

/**
 * Fires `onIdle` when nothing has been received for `idleMs`. One sleep per idle period, not one timer per
 * chunk: touch() only records the time, which keeps the per-chunk cost to one clock read.
 */
export class IdleWatchdog {
  private readonly stopper = new AbortController();
  private last: number;
  fired = false;

  constructor(
    private readonly clock: Clock,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.last = clock.now();
    void this.run();
  }

  touch(): void {
    this.last = this.clock.now();
  }

  stop(): void {
    this.stopper.abort();
  }

  private async run(): Promise<void> {
    let wait = this.idleMs;
    for (;;) {
      try {
        await this.clock.sleep(wait, this.stopper.signal);
      } catch {
        return;
      }
      if (this.stopper.signal.aborted) return;
      const idle = this.clock.now() - this.last;
      if (idle >= this.idleMs) {
        this.fired = true;
        this.onIdle();
        return;
      }
      wait = this.idleMs - idle;
    }
  }
}
