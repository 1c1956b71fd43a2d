// The parts every channel handler shares, built once per bridge.
import type { Clock } from "./clock.ts";
import type { BridgeConfig } from "./config.ts";
import type { BridgeLogger } from "./log.ts";
import type { BridgeMetrics } from "./metrics.ts";
import type { AddressRateLimiter } from "./rate-limiter.ts";
import type { Connection } from "./socket/connection.ts";
import type { Registry } from "./state/registry.ts";
import type { ClusterNode } from "./cluster/cluster-node.ts";

export interface BridgeCore {
  config: BridgeConfig;
  clock: Clock;
  log: BridgeLogger;
  metrics: BridgeMetrics;
  registry: Registry;
  /** Set when BRIDGE_REDIS_URL is: this bridge is one node of a cluster (bridge/cluster/). */
  cluster: ClusterNode | undefined;
  pairingLimiter: AddressRateLimiter;
  /** Counts a failed pairing attempt against its address and logs it (never the code). */
  limiterFailure(connection: Connection, reason: string): void;
}
