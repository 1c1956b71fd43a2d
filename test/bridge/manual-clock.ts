// A clock the bridge tests move by hand: now() stands still until advance(), and advance() wakes every sleep that
// fell due, in due order, so a test decides exactly when a timer fires and never waits for real seconds.
import type { Clock } from "../../bridge/clock.ts";

interface Sleeper {
  ms: number;
  due: number;
  wake: () => void;
}

export class ManualClock implements Clock {
  private sleepers: Sleeper[] = [];

  constructor(private current = 1_700_000_000_000) {}

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        reject(signal!.reason);
      };
      // A woken sleep takes its listener off: the forwarder's heartbeat sleeps on one signal for its whole life, as
      // the real clocks (node:timers/promises, client/util/timers.ts) let it.
      const wake = () => (signal?.removeEventListener("abort", onAbort), resolve());
      const sleeper = { ms, due: this.current + ms, wake };
      this.sleepers.push(sleeper);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Sleeps of `ms` not yet woken: a timer that sleeps again after each round has its next round waiting. */
  sleepingFor(ms: number): number {
    return this.sleepers.filter((sleeper) => sleeper.ms === ms).length;
  }

  advance(ms: number): void {
    this.current += ms;
    const due = this.sleepers.filter((sleeper) => sleeper.due <= this.current).sort((a, b) => a.due - b.due);
    this.sleepers = this.sleepers.filter((sleeper) => !due.includes(sleeper));
    for (const sleeper of due) sleeper.wake();
  }
}
