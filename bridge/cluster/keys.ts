// Every Redis key and channel the cluster uses, in one place (docs/bridge.md "Cluster" lists them). A prefix keeps
// several clusters (or tests) apart in one Redis.
import type { Redis } from "ioredis";

/** What every cluster part that talks to Redis is built with: the connection, the keys and this node's id. */
export interface NodeRedis {
  redis: Redis;
  keys: ClusterKeys;
  nodeId: string;
}

export class ClusterKeys {
  constructor(private readonly prefix: string) {}

  /** A random value set at first use: a node that finds it changed or gone knows Redis lost everything. */
  get epoch(): string {
    return `${this.prefix}:epoch`;
  }
  /** Hash: server id → credential hash (trust on first use, HSETNX). */
  get credentials(): string {
    return `${this.prefix}:credentials`;
  }
  /** Hash: device token hash → device id, the server's grants. */
  devices(serverId: string): string {
    return `${this.prefix}:devices:${serverId}`;
  }
  /** Hash: server id → its app config (JSON), what GET /app-config.json answers for it. */
  get appConfigs(): string {
    return `${this.prefix}:app-configs`;
  }
  /** Hash: pairing code hash → expiry; HDEL takes a code exactly once across nodes. */
  codes(serverId: string): string {
    return `${this.prefix}:codes:${serverId}`;
  }
  /** String: the node holding the server's link, with a TTL renewed by that node's heartbeat. */
  link(serverId: string): string {
    return `${this.prefix}:link:${serverId}`;
  }
  /** Sorted set: node id → when its presence lapses (for the cluster figures). */
  get nodes(): string {
    return `${this.prefix}:nodes`;
  }
  /** Sorted set: server id → when its link lapses (for the cluster figures). */
  get links(): string {
    return `${this.prefix}:links`;
  }
  /** Stream: the server's last events (bounded by BRIDGE_REPLAY_EVENTS and BRIDGE_REPLAY_BYTES). */
  history(serverId: string): string {
    return `${this.prefix}:history:${serverId}`;
  }
  /** Hash: the history's epoch (the server's store), last relayed id and payload bytes held. */
  historyMeta(serverId: string): string {
    return `${this.prefix}:history-meta:${serverId}`;
  }
  /** Hash: event id → the id it follows, for events a deleted session's removal took out of the history's chain. */
  historyGone(serverId: string): string {
    return `${this.prefix}:history-gone:${serverId}`;
  }
  /** Hash: node id → the server's devices connected on that node (JSON list), for `devices_seen`. */
  connected(serverId: string): string {
    return `${this.prefix}:connected:${serverId}`;
  }
  /** Counter: events relayed by the whole cluster. */
  get relayed(): string {
    return `${this.prefix}:relayed`;
  }
  /** Counter of one rate-limit window. */
  limit(name: string, window: number, subject: string): string {
    return `${this.prefix}:limit:${name}:${window}:${subject}`;
  }
  /** Channel: every server's events and history resets, in order, for every node. */
  get eventsChannel(): string {
    return `${this.prefix}:events`;
  }
  /** Channel: registry records changed (grants, codes, registrations): nodes reload them. */
  get controlChannel(): string {
    return `${this.prefix}:control`;
  }
  /** Channel: one node's inbox (requests forwarded to the server links it holds, and their answers). */
  inbox(nodeId: string): string {
    return `${this.prefix}:inbox:${nodeId}`;
  }
}
