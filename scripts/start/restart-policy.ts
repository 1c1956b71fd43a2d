// When `npm start` restarts a child that exited (docs/security.md "npm start"): after 0.5 s, doubling up to 30 s;
// back to 0.5 s once a child has stayed up 30 s. Five exits within 60 s mean a child that keeps failing: it is
// then retried every 30 s and the person is told so once. Pure: the caller gives the times, so a test needs no clock.

export const RESTART = {
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  /** A child up this long was healthy: its next exit starts the backoff over. */
  stableAfterMs: 30_000,
  burstExits: 5,
  burstWindowMs: 60_000,
} as const;

export interface RestartDecision {
  delayMs: number;
  /** True on the exit that makes `burstExits` within `burstWindowMs`: say once that it keeps exiting. */
  keepsExiting: boolean;
}

export class RestartPolicy {
  private nextDelayMs: number = RESTART.firstDelayMs;
  private readonly recentExits: number[] = [];

  /** A child started at `startedAt` exited at `now` (ms): how long to wait before starting it again. */
  onExit(startedAt: number, now: number): RestartDecision {
    if (now - startedAt >= RESTART.stableAfterMs) this.nextDelayMs = RESTART.firstDelayMs;
    this.recentExits.push(now);
    while (this.recentExits.length > 0 && now - this.recentExits[0]! > RESTART.burstWindowMs) this.recentExits.shift();
    const keepsExiting = this.recentExits.length >= RESTART.burstExits;
    if (keepsExiting) {
      this.nextDelayMs = RESTART.maxDelayMs;
      // Counted once: the next message needs five new exits.
      this.recentExits.length = 0;
    }
    const delayMs = this.nextDelayMs;
    this.nextDelayMs = Math.min(this.nextDelayMs * 2, RESTART.maxDelayMs);
    return { delayMs, keepsExiting };
  }
}
