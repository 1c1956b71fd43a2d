// Which node holds each server's link: `…:link:<server id>` → node id, with a TTL the holder renews on every
// heartbeat. A second join of the same server on any node finds the key held by another node and is refused
// `already_connected`; a killed node stops renewing, and its servers may join elsewhere once the TTL lapses.
// Claims and releases are compare-and-set scripts, so a node never takes or frees a link another node holds.
import type { Redis } from "ioredis";
import type { Clock } from "../clock.ts";
import type { NodeRedis } from "./keys.ts";
import { LuaScript } from "./lua-script.ts";

const CLAIM = new LuaScript(`
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
`);

const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
end
return 1
`);

/** What link ownership is built from. */
export interface LinkOwnershipOptions extends NodeRedis {
  ttlMs: number;
  /** Wall time: the claim's score is compared with other nodes' (the figures), as Redis's own expiry is. */
  wallClock: Clock;
}

export class LinkOwnership {
  constructor(private readonly options: LinkOwnershipOptions) {}

  /** Takes (or renews) the server's link for this node; false when another node holds it. */
  async claim(serverId: string): Promise<boolean> {
    const args = [this.options.nodeId, this.options.ttlMs, this.options.wallClock.now() + this.options.ttlMs, serverId];
    return (
      (await CLAIM.run(this.options.redis, [this.options.keys.link(serverId), this.options.keys.links], args)) === 1
    );
  }

  async release(serverId: string): Promise<void> {
    await RELEASE.run(
      this.options.redis,
      [this.options.keys.link(serverId), this.options.keys.links],
      [this.options.nodeId, serverId],
    );
  }

  /** The node holding the server's link, if any. */
  async owner(serverId: string): Promise<string | undefined> {
    return (await this.options.redis.get(this.options.keys.link(serverId))) ?? undefined;
  }
}
