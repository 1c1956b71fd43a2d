// The per-address budget of GET /shared/{token} (docs/people.md "Share links"): a link is a bearer secret of 128
// bits, so guessing is hopeless, but the route needs no credential and reads a blob of up to ~11 MiB; this keeps one
// address from making the server read them without pause. Fixed windows on the injected clock; the addresses
// counted in a window are capped, so memory stays bounded whatever the number of addresses (past the cap, an address
// not yet counted waits for the next window).
import type { Clock } from "../clock.ts";

export interface ReadLimits {
  /** Reads one address may make per window. */
  perAddress: number;
  windowMs: number;
  /** Distinct addresses counted per window. */
  maxAddresses: number;
}

export const SHARED_READ_LIMITS: ReadLimits = { perAddress: 60, windowMs: 60_000, maxAddresses: 10_000 };

export class ReadLimiter {
  private windowStart: number;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: ReadLimits = SHARED_READ_LIMITS,
  ) {
    this.windowStart = clock.now();
  }

  /** Counts a read from `address`; the seconds to wait when it is over its budget, else undefined. */
  take(address: string): number | undefined {
    const now = this.clock.now();
    if (now - this.windowStart >= this.limits.windowMs) {
      this.windowStart = now;
      this.counts.clear();
    }
    const counted = this.counts.get(address) ?? 0;
    const full = counted === 0 && this.counts.size >= this.limits.maxAddresses;
    if (full || counted >= this.limits.perAddress)
      return Math.max(1, Math.ceil((this.windowStart + this.limits.windowMs - now) / 1000));
    this.counts.set(address, counted + 1);
    return undefined;
  }
}
