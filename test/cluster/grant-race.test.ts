// A device that just paired through one node joins another before that node heard of its grant (docs/bridge.md
// "Cluster", B117): the node reads the server's record from Redis before refusing, because a refusal is
// `unauthorized` and the client library forgets its credentials on it. A real redis-server, in-process nodes, the
// official phoenix client.
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { device, fakeServer } from "../bridge/helpers.ts";
import { appOn, clusterNodes, useRedis } from "./support.ts";

const redisOf = useRedis();

describe("a grant not yet heard of on this node", () => {
  it("B117: is read from Redis before a join is refused; a hash no server grants is still refused", async () => {
    const redis = redisOf();
    const [a, b] = await clusterNodes(redis, 2);
    const server = await fakeServer(a!.url, { devices: [] });
    expect(server.joined.status).toBe("ok");
    const phone = device("dev_phone");

    // The grant lands in Redis without the control message that would tell node B (as if B had not heard it yet).
    const writer = new Redis(redis.url);
    try {
      const prefix = (b!.core.config.cluster as { keyPrefix: string }).keyPrefix;
      await writer.hset(`${prefix}:devices:srv1`, phone.grant.token_hash, JSON.stringify([phone.deviceId]));
    } finally {
      writer.disconnect();
    }
    expect(b!.core.registry.deviceOf("srv1", phone.grant.token_hash)).toBeUndefined();

    const app = await appOn(b!.url, phone.token);
    expect(app.joined.status).toBe("ok");
    expect(b!.core.registry.deviceOf("srv1", phone.grant.token_hash)).toBe("dev_phone");

    const stranger = await appOn(b!.url, device("dev_stranger").token);
    expect(stranger.joined).toMatchObject({ status: "error", response: { reason: "unauthorized" } });
  });
});
