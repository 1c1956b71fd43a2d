// The parts every channel handler shares, built once per bridge.
import type { Clock } from "./clock.ts";
import type { BridgeConfig } from "./config.ts";
import type { BridgeLogger } from "./log.ts";
import type { BridgeMetrics } from "./metrics.ts";
import type { Connection } from "./socket/connection.ts";
import type { AnswerDesk } from "./state/answer-desk.ts";
import type { Registry } from "./state/registry.ts";
import type {
  GrantsCapability,
  PairingCapability,
  ReplayCapability,
  ServersCapability,
  SharedState,
} from "./state/shared-state.ts";

export interface BridgeCore {
  config: BridgeConfig;
  clock: Clock;
  log: BridgeLogger;
  metrics: BridgeMetrics;
  /**
   * What the bridge shares with its cluster (state/shared-state.ts), in memory on one node or in Redis, as the four
   * capabilities the channels use; `node` is the whole, for its health and its end.
   */
  pairing: PairingCapability;
  servers: ServersCapability;
  replay: ReplayCapability;
  grants: GrantsCapability;
  node: Pick<SharedState, "health" | "close">;
  /** This node's view of the servers (`grants.registry`). */
  registry: Registry;
  /** Where a server's answers find the waiter that asked on this node. */
  answers: AnswerDesk;
  /** Counts a failed pairing attempt against its address and logs it (never the code). */
  limiterFailure(connection: Connection, reason: string): void;
}
