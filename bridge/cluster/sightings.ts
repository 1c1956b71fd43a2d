// `devices_seen` in a cluster (the single node's is bridge/state/device-sightings.ts): a server's devices may have
// sockets on any node, so each node keeps its own list of the server's connected devices in Redis
// (`…:connected:<server id>`, a hash node → ids) and sends the server the union over the nodes still alive, through
// whichever node holds its link.
import type { Redis } from "ioredis";
import type { Clock } from "../clock.ts";
import type { ServerState } from "../state/registry.ts";
import type { NodeRedis } from "./keys.ts";

type ToServer = (state: ServerState, event: "devices_seen", payload: Record<string, unknown>) => Promise<boolean>;

/** What the cluster's sightings is built from. */
export interface ClusterSightingsOptions extends NodeRedis {
  /** Wall time: node presence scores are Redis-side expiries shared by every node. */
  wallClock: Clock;
  toServer: ToServer;
  failed: (error: unknown) => void;
}

export class ClusterSightings {
  constructor(private readonly options: ClusterSightingsOptions) {}

  /** Devices seen on this node since the last report, and the ones connected here now. */
  report(state: ServerState, deviceIds: string[], connectedHere: string[]): void {
    void this.send(state, deviceIds, connectedHere).catch(this.options.failed);
  }

  private async send(state: ServerState, deviceIds: string[], connectedHere: string[]): Promise<void> {
    const key = this.options.keys.connected(state.id);
    const results = await this.options.redis
      .multi()
      .hset(key, this.options.nodeId, JSON.stringify(connectedHere))
      .hgetall(key)
      .zrangebyscore(this.options.keys.nodes, this.options.wallClock.now(), "+inf")
      .exec();
    const lists = (results?.[1]?.[1] ?? {}) as Record<string, string>;
    const alive = new Set([...((results?.[2]?.[1] ?? []) as string[]), this.options.nodeId]);
    const connected = new Set<string>();
    const gone: string[] = [];
    for (const [node, text] of Object.entries(lists)) {
      if (!alive.has(node)) gone.push(node);
      else for (const id of parseIds(text)) connected.add(id);
    }
    // A dead node's list goes with it (node ids are new on every start: the hash would only grow).
    if (gone.length > 0) await this.options.redis.hdel(key, ...gone);
    await this.options.toServer(state, "devices_seen", { device_ids: deviceIds, connected: [...connected] });
  }
}

function parseIds(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}
