// bridge/rate-limiter.ts's rule counted in Redis, so every node spends one budget: failed pairing attempts and new
// server registrations are limited cluster-wide. Fixed windows of the bridge's clock, each a few counters that
// expire with their window (INCR + PEXPIRE): per address, overall, and how many distinct addresses were counted.
import type { Redis } from "ioredis";
import type { Clock } from "../clock.ts";
import type { NodeRedis } from "./keys.ts";

export interface RateRule {
  perAddress: number;
  overall: number;
  windowMs: number;
  maxAddresses: number;
}

/** What a limiter is built from: its name (a key part), its rule, and the clock its windows run on. */
export interface RedisRateLimiterOptions extends Pick<NodeRedis, "redis" | "keys"> {
  clock: Clock;
  name: string;
  rule: RateRule;
  failed: (error: unknown) => void;
}

export class RedisRateLimiter {
  constructor(private readonly options: RedisRateLimiterOptions) {}

  /** Whether an attempt from `address` is refused before it is looked at (the same rule as AddressRateLimiter). */
  async limited(address: string): Promise<boolean> {
    const window = this.window();
    const [counted, overall, addresses] = (
      await this.options.redis.mget(
        this.key(window, `address:${address}`),
        this.key(window, "overall"),
        this.key(window, "addresses"),
      )
    ).map((value) => Number(value ?? 0));
    if (counted! >= this.options.rule.perAddress) return true;
    if (counted === 0) return addresses! >= this.options.rule.maxAddresses;
    return overall! >= this.options.rule.overall;
  }

  /** Counts one attempt; a failure to count is logged, never thrown at the caller. */
  record(address: string): void {
    void this.count(address).catch(this.options.failed);
  }

  async count(address: string): Promise<void> {
    const window = this.window();
    const ttl = this.options.rule.windowMs * 2;
    const results = await this.options.redis
      .multi()
      .incr(this.key(window, `address:${address}`))
      .pexpire(this.key(window, `address:${address}`), ttl)
      .incr(this.key(window, "overall"))
      .pexpire(this.key(window, "overall"), ttl)
      .exec();
    if (results?.[0]?.[1] === 1)
      await this.options.redis
        .multi()
        .incr(this.key(window, "addresses"))
        .pexpire(this.key(window, "addresses"), ttl)
        .exec();
  }

  private window(): number {
    return Math.floor(this.options.clock.now() / this.options.rule.windowMs);
  }

  private key(window: number, subject: string): string {
    return this.options.keys.limit(this.options.name, window, subject);
  }
}
