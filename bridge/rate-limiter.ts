// Attempts counted per address and overall in fixed windows of the injected clock: failed pairing attempts (with
// codes of 50 bits and at most `overall` failures per window, guessing a live code takes longer than the universe
// has), and new server registrations (server-channel.ts).
import type { BridgeClock } from "./clock.ts";

/** More distinct counted addresses than this in one window is itself an attack: everyone waits. */
const MAX_TRACKED_ADDRESSES = 100_000;

export class AddressRateLimiter {
  private windowStart: number;
  private overall = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly clock: BridgeClock,
    private readonly perAddress: number,
    private readonly overallLimit: number,
    private readonly windowMs: number,
  ) {
    this.windowStart = clock.now();
  }

  limited(address: string): boolean {
    this.roll();
    if (this.overall >= this.overallLimit) return true;
    if (this.byAddress.size >= MAX_TRACKED_ADDRESSES) return true;
    return (this.byAddress.get(address) ?? 0) >= this.perAddress;
  }

  record(address: string): void {
    this.roll();
    this.overall++;
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
  }

  private roll(): void {
    const now = this.clock.now();
    if (now - this.windowStart < this.windowMs) return;
    this.windowStart = now;
    this.overall = 0;
    this.byAddress.clear();
  }
}
