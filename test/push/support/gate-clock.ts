// A clock whose sleeps (from `holdFromMs` up) wait until the test releases them: a delivery's backoff holds its lane
// while the test changes what is queued behind it, and the waits asked for are recorded. Shorter sleeps pass at once
// and move the time on; the provider's timeouts (tens of seconds) are held, so they never fire in a test.
import type { Clock } from "../../../server/clock.ts";

export class GateClock implements Clock {
  /** The sleeps asked for, in order, with their durations. */
  readonly asked: number[] = [];
  private readonly waiting: Array<() => void> = [];
  private readonly sleepWaiters: Array<() => void> = [];

  constructor(
    private readonly holdFromMs = 0,
    public time = Date.parse("2030-01-01T00:00:00.000Z"),
  ) {}

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.asked.push(ms);
    if (ms < this.holdFromMs) {
      this.time += ms;
      return Promise.resolve();
    }
    for (const wake of this.sleepWaiters.splice(0)) wake();
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }

  /** Resolves once `count` sleeps have been asked for in all. */
  async sleeps(count: number): Promise<void> {
    while (this.asked.length < count) await new Promise<void>((resolve) => this.sleepWaiters.push(resolve));
  }

  /** Ends every sleep now waiting. */
  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
