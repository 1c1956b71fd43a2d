// Admission for relayed calls: how many wait at once and how many start per second, per socket and per server.
// Counters exist only while a key has calls in flight or started some this window, so a flood of sockets leaves
// nothing behind once they are gone.
import type { Clock } from "../clock.ts";
import type { RelayConfig } from "./relay-config.ts";

const WINDOW_MS = 1000;

/** Calls started per key in the current one-second window of the injected clock. */
class WindowCounter {
  private windowStart: number;
  private readonly counts = new Map<string, number>();

  constructor(private readonly clock: Clock) {
    this.windowStart = clock.now();
  }

  /** Counts one call for `key` unless it already made `limit` this window. */
  take(key: string, limit: number): boolean {
    const now = this.clock.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.counts.clear();
    }
    const used = this.counts.get(key) ?? 0;
    if (used >= limit) return false;
    this.counts.set(key, used + 1);
    return true;
  }
}

export class RelayLimits {
  private readonly started: WindowCounter;
  private readonly inFlight = new Map<string, number>();

  constructor(
    clock: Clock,
    private readonly config: RelayConfig,
  ) {
    this.started = new WindowCounter(clock);
  }

  /** Admits a call of `socketKey` to `serverKey`, counting it in flight; false when a bound says no. */
  admit(socketKey: string, serverKey: string): boolean {
    const { config } = this;
    if ((this.inFlight.get(socketKey) ?? 0) >= config.inFlightPerSocket) return false;
    if ((this.inFlight.get(serverKey) ?? 0) >= config.inFlightPerServer) return false;
    if (!this.started.take(socketKey, config.perSocketPerSecond)) return false;
    if (!this.started.take(serverKey, config.perServerPerSecond)) return false;
    this.bump(socketKey, 1);
    this.bump(serverKey, 1);
    return true;
  }

  /** The call answered, timed out or was dropped. */
  release(socketKey: string, serverKey: string): void {
    this.bump(socketKey, -1);
    this.bump(serverKey, -1);
  }

  private bump(key: string, by: number): void {
    const next = (this.inFlight.get(key) ?? 0) + by;
    if (next > 0) this.inFlight.set(key, next);
    else this.inFlight.delete(key);
  }
}
