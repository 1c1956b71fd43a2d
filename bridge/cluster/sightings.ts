// `devices_seen` in a cluster (the single node's is bridge/state/device-sightings.ts): a server's devices may have
// sockets on any node, so each node keeps its own list of the server's connected devices in Redis
// (`…:connected:<server id>`, a hash node → ids) and sends the server the union over the nodes still alive, through
// whichever node holds its link.
import type { Redis } from "ioredis";
import type { Clock } from "../clock.ts";
import type { ServerState } from "../state/registry.ts";
import type { ClusterKeys } from "./keys.ts";

type ToServer = (state: ServerState, event: "devices_seen", payload: Record<string, unknown>) => Promise<boolean>;

export class ClusterSightings {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ClusterKeys,
    private readonly nodeId: string,
    /** Wall time: node presence scores are Redis-side expiries shared by every node. */
    private readonly wallClock: Clock,
    private readonly toServer: ToServer,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Devices seen on this node since the last report, and the ones connected here now. */
  report(state: ServerState, deviceIds: string[], connectedHere: string[]): void {
    void this.send(state, deviceIds, connectedHere).catch(this.failed);
  }

  private async send(state: ServerState, deviceIds: string[], connectedHere: string[]): Promise<void> {
    const key = this.keys.connected(state.id);
    const results = await this.redis
      .multi()
      .hset(key, this.nodeId, JSON.stringify(connectedHere))
      .hgetall(key)
      .zrangebyscore(this.keys.nodes, this.wallClock.now(), "+inf")
      .exec();
    const lists = (results?.[1]?.[1] ?? {}) as Record<string, string>;
    const alive = new Set([...((results?.[2]?.[1] ?? []) as string[]), this.nodeId]);
    const connected = new Set<string>();
    const gone: string[] = [];
    for (const [node, text] of Object.entries(lists)) {
      if (!alive.has(node)) gone.push(node);
      else for (const id of parseIds(text)) connected.add(id);
    }
    // A dead node's list goes with it (node ids are new on every start: the hash would only grow).
    if (gone.length > 0) await this.redis.hdel(key, ...gone);
    await this.toServer(state, "devices_seen", { device_ids: deviceIds, connected: [...connected] });
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
