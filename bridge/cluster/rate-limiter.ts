// bridge/rate-limiter.ts's rule counted in Redis, so every node spends one budget: failed pairing attempts and new
// server registrations are limited cluster-wide. Fixed windows of the bridge's clock, each a few counters that
// expire with their window (INCR + PEXPIRE): per address, overall, and how many distinct addresses were counted.
import type { Redis } from "ioredis";
import type { Clock } from "../clock.ts";
import type { ClusterKeys } from "./keys.ts";

export interface RateRule {
  perAddress: number;
  overall: number;
  windowMs: number;
  maxAddresses: number;
}

export class RedisRateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ClusterKeys,
    private readonly clock: Clock,
    private readonly name: string,
    private readonly rule: RateRule,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Whether an attempt from `address` is refused before it is looked at (the same rule as AddressRateLimiter). */
  async limited(address: string): Promise<boolean> {
    const window = this.window();
    const [counted, overall, addresses] = (
      await this.redis.mget(
        this.key(window, `address:${address}`),
        this.key(window, "overall"),
        this.key(window, "addresses"),
      )
    ).map((value) => Number(value ?? 0));
    if (counted! >= this.rule.perAddress) return true;
    if (counted === 0) return addresses! >= this.rule.maxAddresses;
    return overall! >= this.rule.overall;
  }

  /** Counts one attempt; a failure to count is logged, never thrown at the caller. */
  record(address: string): void {
    void this.count(address).catch(this.failed);
  }

  async count(address: string): Promise<void> {
    const window = this.window();
    const ttl = this.rule.windowMs * 2;
    const results = await this.redis
      .multi()
      .incr(this.key(window, `address:${address}`))
      .pexpire(this.key(window, `address:${address}`), ttl)
      .incr(this.key(window, "overall"))
      .pexpire(this.key(window, "overall"), ttl)
      .exec();
    if (results?.[0]?.[1] === 1)
      await this.redis.multi().incr(this.key(window, "addresses")).pexpire(this.key(window, "addresses"), ttl).exec();
  }

  private window(): number {
    return Math.floor(this.clock.now() / this.rule.windowMs);
  }

  private key(window: number, subject: string): string {
    return this.keys.limit(this.name, window, subject);
  }
}
