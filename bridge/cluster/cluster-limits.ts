// The cluster's pairing and registration limits (docs/bridge.md "Cluster"): the single node's AddressRateLimiter
// rules, counted in Redis (rate-limiter.ts) so every node refuses the same address. Both windows run on the bridge's
// injected clock.
import type { Clock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import type { NodeRedis } from "./keys.ts";
import { RedisRateLimiter } from "./rate-limiter.ts";

export interface ClusterLimitsOptions extends NodeRedis {
  config: BridgeConfig;
  clock: Clock;
  failed: (what: string, error: unknown) => void;
}

export interface ClusterLimiters {
  /** Failed pairing attempts, per address and overall. */
  pairing: RedisRateLimiter;
  /** New server ids registered per address (the registration cap bounds them overall). */
  registration: RedisRateLimiter;
}

export function clusterLimiters(options: ClusterLimitsOptions): ClusterLimiters {
  const { config, clock, failed, ...redis } = options;
  return {
    pairing: new RedisRateLimiter({
      ...redis,
      clock,
      name: "pairing",
      rule: {
        perAddress: config.pairingFailuresPerAddress,
        overall: config.pairingFailuresOverall,
        windowMs: config.pairingWindowMs,
        maxAddresses: config.pairingFailingAddresses,
      },
      failed: (error) => failed("pairing limit", error),
    }),
    registration: new RedisRateLimiter({
      ...redis,
      clock,
      name: "registration",
      rule: {
        perAddress: config.serverRegistrationsPerAddress,
        overall: Number.POSITIVE_INFINITY,
        windowMs: config.serverRegistrationWindowMs,
        maxAddresses: Number.POSITIVE_INFINITY,
      },
      failed: (error) => failed("registration limit", error),
    }),
  };
}
