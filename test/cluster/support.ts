// The cluster suites' rig: one real redis-server per file (test/support/redis.ts) and bridge nodes in this process
// sharing it under a key prefix of their own per test, with short link TTLs so a node's absence shows in about a
// second. Nodes are the same startBridge as the single-node suites, with cluster.redisUrl set.
import { randomUUID } from "node:crypto";
import type { Channel, Socket } from "phoenix";
import type { ClusterConfig } from "../../bridge/cluster/cluster-config.ts";
import { ClusterNode } from "../../bridge/cluster/cluster-node.ts";
import type { ClusterFigures } from "../../bridge/cluster/figures.ts";
import type { BridgeConfig } from "../../bridge/config.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  cleanups,
  joinOnce,
  phoenixSocket,
  runCleanups,
  testBridge,
  until,
  type TestBridge,
} from "../bridge/helpers.ts";
import { startRedis, type TestRedis } from "../support/redis.ts";

/** Timings short enough for tests: a killed node's links free up after ~1 s. */
export const FAST_CLUSTER = { linkTtlMs: 900, heartbeatMs: 150, inboxTimeoutMs: 2000 };

/** One redis-server for a test file: started before its tests, stopped after; the getter reads it in a test. */
export function useRedis(): () => TestRedis {
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.stop());
  afterEach(runCleanups);
  return () => redis!;
}

/** `count` nodes of one cluster (a fresh key prefix) on `redis`. */
/** Config overrides for a node; `cluster` takes any of its keys. */
export type NodeOverrides = Omit<Partial<BridgeConfig>, "cluster"> & { cluster?: Partial<ClusterConfig> };

export async function clusterNodes(
  redis: TestRedis,
  count: number,
  overrides: NodeOverrides = {},
): Promise<TestBridge[]> {
  const keyPrefix = `t${randomUUID().slice(0, 8)}`;
  const nodes: TestBridge[] = [];
  for (let i = 0; i < count; i++) nodes.push(await clusterNode(redis, keyPrefix, `node${i}`, overrides));
  return nodes;
}

export async function clusterNode(
  redis: TestRedis,
  keyPrefix: string,
  nodeId: string,
  overrides: NodeOverrides = {},
): Promise<TestBridge> {
  return testBridge({
    ...overrides,
    cluster: { redisUrl: redis.url, keyPrefix, nodeId, ...FAST_CLUSTER, ...overrides.cluster },
  });
}

/** An app socket (official phoenix client) joined to `events:server:<id>` on `url`, recording the events and statuses it receives. */
export async function appOn(
  url: string,
  token: string,
  params: { since_id?: number; epoch?: string } = {},
  serverId = "srv1",
) {
  const socket: Socket = phoenixSocket(url, { params: { token } });
  const closes: number[] = [];
  socket.onClose((event: { code: number }) => void closes.push(event.code));
  const joinParams = {
    ...(params.since_id === undefined ? {} : { since_id: formatEventId(params.since_id) }),
    ...(params.epoch === undefined ? {} : { epoch: params.epoch }),
  };
  const channel: Channel = socket.channel(`events:server:${serverId}`, joinParams);
  const received: string[] = [];
  channel.on("session_event", (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id));
  const statuses: Array<{ online: boolean }> = [];
  channel.on("server_status", (payload: { online: boolean }) => void statuses.push(payload));
  const joined = await joinOnce(channel);
  return { socket, channel, joined, received, statuses, closes };
}

/** Waits until `node`'s registry lists the device (a grant reaches the other nodes through Redis). */
export function untilGranted(node: TestBridge, tokenHash: string, serverId = "srv1"): Promise<void> {
  return until(
    () => node.core.registry.deviceOf(serverId, tokenHash) !== undefined,
    `the grant reached ${serverId}'s node`,
  );
}

/** A node's cluster figures (its shared state is a ClusterNode). */
export function figuresOf(node: TestBridge): ClusterFigures {
  const shared = node.core.node;
  if (!(shared instanceof ClusterNode)) throw new Error("not a cluster node");
  return shared.figures;
}

/** Event ids first..last as the wire spells them. */
export function ids(first: number, last: number): string[] {
  const out: string[] = [];
  for (let n = first; n <= last; n++) out.push(formatEventId(n));
  return out;
}

export { cleanups };
