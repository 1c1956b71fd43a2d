// Time as the bridge sees it. Idle timeouts, code expiry and rate limits read `now()`; tests inject a clock they
// move by hand, so nothing waits for real seconds.
export interface BridgeClock {
  now(): number;
}

export const systemClock: BridgeClock = { now: () => Date.now() };

/** A clock tests advance explicitly. */
export class ManualClock implements BridgeClock {
  constructor(private current = 1_700_000_000_000) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
