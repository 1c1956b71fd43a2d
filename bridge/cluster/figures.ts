// The cluster's figures for GET /metrics: this node's own counters, and the cluster's as Redis last told them
// (refreshed on every heartbeat, so /metrics never waits on Redis).
import type { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.ts";

export class ClusterFigures {
  /** Events this node received from other nodes' links and fanned out. */
  received = 0;
  /** Times this node found the cluster's epoch changed (Redis restarted empty). */
  epochChanges = 0;
  redisErrors = 0;
  /** Nodes whose presence has not lapsed. */
  nodes = 0;
  /** Servers linked on some node. */
  linkedServers = 0;
  /** Events relayed by every node together. */
  relayedTotal = 0;

  /** `now` is wall time (ms): presence scores are compared across nodes. */
  async refresh(redis: Redis, keys: ClusterKeys, nodeId: string, ttlMs: number, now: number): Promise<void> {
    const results = await redis
      .multi()
      .zadd(keys.nodes, now + ttlMs, nodeId)
      .zremrangebyscore(keys.nodes, "-inf", now)
      .zremrangebyscore(keys.links, "-inf", now)
      .zcard(keys.nodes)
      .zcard(keys.links)
      .get(keys.relayed)
      .exec();
    this.nodes = Number(results?.[3]?.[1] ?? 0);
    this.linkedServers = Number(results?.[4]?.[1] ?? 0);
    this.relayedTotal = Number(results?.[5]?.[1] ?? 0);
  }

  render(
    counter: (name: string, help: string, value: number) => void,
    gauge: (name: string, help: string, value: number) => void,
  ): void {
    counter(
      "bridge_cluster_events_received_total",
      "Events this node received from other nodes' server links and fanned out.",
      this.received,
    );
    counter(
      "bridge_cluster_epoch_changes_total",
      "Times this node found the cluster's epoch changed (Redis restarted empty).",
      this.epochChanges,
    );
    counter("bridge_cluster_redis_errors_total", "Redis operations of this node that failed.", this.redisErrors);
    gauge("bridge_cluster_nodes", "Nodes of the cluster alive (as of this node's last heartbeat).", this.nodes);
    gauge("bridge_cluster_servers_linked", "Servers linked on some node of the cluster.", this.linkedServers);
    counter("bridge_cluster_events_relayed_total", "Events relayed by all nodes together.", this.relayedTotal);
  }
}
