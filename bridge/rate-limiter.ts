// Attempts counted per address and overall in fixed windows of the injected clock: failed pairing attempts and new
// server registrations (server-channel.ts), and share link reads (http/shared-route.ts).
//
// The overall budget must not become a lockout: one attacker with a few addresses used to spend it and get every
// later pairing refused `rate_limited`, valid codes included. So past the overall budget only the addresses already
// counted in this window are refused unseen; an address not yet counted still gets its attempt checked (a valid code
// pairs; a wrong one is counted, and that address then waits for the next window). What bounds guessing then is the
// number of distinct addresses counted per window (`maxAddresses`): past it, every address waits. docs/bridge.md
// "Pairing limits" computes the resulting odds.
import type { Clock } from "./clock.ts";

/** Distinct counted addresses per window when the owner sets no bound (server registrations). */
const DEFAULT_MAX_ADDRESSES = 100_000;

export class AddressRateLimiter {
  private windowStart: number;
  private overall = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly perAddress: number,
    private readonly overallLimit: number,
    private readonly windowMs: number,
    /** More distinct counted addresses than this in one window is itself an attack: every address waits. */
    private readonly maxAddresses: number = DEFAULT_MAX_ADDRESSES,
  ) {
    this.windowStart = clock.now();
  }

  /** Whether an attempt from `address` is refused before it is looked at. */
  limited(address: string): boolean {
    this.roll();
    const counted = this.byAddress.get(address) ?? 0;
    if (counted >= this.perAddress) return true;
    if (counted === 0) return this.byAddress.size >= this.maxAddresses;
    return this.overall >= this.overallLimit;
  }

  record(address: string): void {
    this.roll();
    this.overall++;
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
  }

  /** Whole seconds until the current window ends (at least 1): a refused caller's Retry-After. */
  secondsLeft(): number {
    this.roll();
    return Math.max(1, Math.ceil((this.windowStart + this.windowMs - this.clock.now()) / 1000));
  }

  private roll(): void {
    const now = this.clock.now();
    if (now - this.windowStart < this.windowMs) return;
    this.windowStart = now;
    this.overall = 0;
    this.byAddress.clear();
  }
}
