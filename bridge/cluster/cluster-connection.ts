// A cluster node's connection to Redis (docs/bridge.md "Cluster"): its two connections (commands, and the subscriber
// that only listens), the cluster's epoch and the registry's records read before the node serves anything, how a
// failed Redis operation is reported, and whether Redis still answers (GET /health).
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { after, systemClock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import type { BridgeLogger } from "../log.ts";
import type { ClusterFigures } from "./figures.ts";
import { learnEpoch } from "./heartbeat.ts";
import { ClusterKeys } from "./keys.ts";
import { connectRedis, redisClient } from "./redis-client.ts";
import { RedisRegistryStore } from "./registry-store.ts";

/** A node's Redis, connected, with the cluster's epoch and the registry's records read. */
export interface Connected {
  nodeId: string;
  keys: ClusterKeys;
  commands: Redis;
  subscriber: Redis;
  store: RedisRegistryStore;
  epoch: string | undefined;
}

/** Where a failed Redis operation of node `nodeId` goes. */
export type FailureReport = (what: string, nodeId: string, error: unknown) => void;

/** Connects both connections (both let go when either fails), learns the epoch, and reads the registry's records. */
export async function connectNode(config: BridgeConfig, redisUrl: string, failed: FailureReport): Promise<Connected> {
  const nodeId = config.cluster.nodeId ?? randomUUID();
  const keys = new ClusterKeys(config.cluster.keyPrefix);
  const commands = redisClient(redisUrl, `bridge-${nodeId}`);
  const subscriber = redisClient(redisUrl, `bridge-${nodeId}-sub`);
  // ioredis reports connection trouble as events; unheard, they would be printed as unhandled.
  commands.on("error", (error: unknown) => failed("redis connection", nodeId, error));
  subscriber.on("error", (error: unknown) => failed("redis subscriber", nodeId, error));
  try {
    await connectRedis(commands, redisUrl);
    await connectRedis(subscriber, redisUrl);
  } catch (error) {
    commands.disconnect();
    subscriber.disconnect();
    throw error;
  }
  const store = new RedisRegistryStore({
    redis: commands,
    keys,
    nodeId,
    failed: (what, error) => failed(what, nodeId, error),
  });
  const epoch = await learnEpoch(commands, keys);
  await store.preload();
  return { nodeId, keys, commands, subscriber, store, epoch };
}

/** Counts a failed Redis operation in the node's figures and logs it. */
export function reportFailure(
  log: BridgeLogger,
  figures: ClusterFigures,
  nodeId: string,
  what: string,
  error: unknown,
): void {
  figures.redisErrors++;
  log.warn(
    { node: nodeId, what, error: error instanceof Error ? error.message : String(error) },
    "cluster: redis operation failed",
  );
}

/** Whether Redis answers a PING within `withinMs` of wall time. */
export async function redisAnswers(commands: Redis, withinMs: number): Promise<boolean> {
  let cancel = () => undefined as void;
  const timeout = new Promise<boolean>((resolve) => (cancel = after(systemClock, withinMs, () => resolve(false))));
  const pong = commands.ping().then(
    () => true,
    () => false,
  );
  const answers = await Promise.race([pong, timeout]);
  cancel();
  return answers;
}
