// End-to-end encryption across a cluster (docs/security.md, docs/bridge.md "Cluster"): the server linked on node A, an
// encrypting device on node B. The device's listeners get the marker while Redis (every key's contents and every
// message the nodes publish to each other) holds no plaintext of it, and a device's mode survives the trip through
// Redis (node B sends it `sealed_event`, never `session_event`, live and in a replay). A real redis-server, the real
// server and forwarder, the client library.
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { liveClient, markerHeard, until } from "../client/support/stack.ts";
import { clusterNode, FAST_CLUSTER, useRedis } from "./support.ts";
import type { TestBridge } from "../bridge/helpers.ts";
import { cleanups, joinOnce, phoenixSocket } from "../bridge/helpers.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { BridgeCapture } from "../e2e/capture.ts";
import { useStack } from "../support/use-stack.ts";

const redisOf = useRedis();

const scope = useStack();

/** Everything Redis holds under `prefix`, as text: strings, hashes, lists, sets, sorted sets and streams. */
async function redisContents(url: string, prefix: string): Promise<string[]> {
  const reader = new Redis(url, { lazyConnect: true });
  await reader.connect();
  try {
    const texts: string[] = [];
    for (const key of await reader.keys(`${prefix}*`)) {
      const type = await reader.type(key);
      if (type === "string") texts.push(`${key} ${await reader.get(key)}`);
      else if (type === "hash") texts.push(`${key} ${JSON.stringify(await reader.hgetall(key))}`);
      else if (type === "list") texts.push(`${key} ${JSON.stringify(await reader.lrange(key, 0, -1))}`);
      else if (type === "set") texts.push(`${key} ${JSON.stringify(await reader.smembers(key))}`);
      else if (type === "zset") texts.push(`${key} ${JSON.stringify(await reader.zrange(key, 0, -1))}`);
      else if (type === "stream") texts.push(`${key} ${JSON.stringify(await reader.xrange(key, "-", "+"))}`);
    }
    return texts;
  } finally {
    reader.disconnect();
  }
}

/** Every message published on Redis while it runs (the nodes' fan-out, control and inbox traffic). */
async function listenToRedis(url: string): Promise<{ messages: string[]; stop: () => void }> {
  const listener = new Redis(url, { lazyConnect: true });
  await listener.connect();
  const messages: string[] = [];
  listener.on(
    "pmessage",
    (_pattern: string, channel: string, message: string) => void messages.push(`${channel} ${message}`),
  );
  listener.on("pmessageBuffer", () => undefined);
  await listener.psubscribe("*");
  return { messages, stop: () => listener.disconnect() };
}

describe("an encrypting device on another node than its server", () => {
  it("gets the marker while Redis and the nodes hold none of it; its mode survives Redis (sealed_event live and in a replay)", async () => {
    const redis = redisOf();
    const keyPrefix = `e2e${Date.now().toString(36)}`;
    const cluster = { redisUrl: redis.url, keyPrefix, nodeId: "node-a", ...FAST_CLUSTER };
    const published = await listenToRedis(redis.url);
    cleanups.push(async () => published.stop());
    const capture = BridgeCapture.install();
    scope.onClose(() => capture.uninstall());
    const stack = await scope.start({ cluster });
    const nodeB: TestBridge = await clusterNode(redis, keyPrefix, "node-b");
    const credentials = await stack.pair();
    expect(credentials.e2e).toBeDefined();

    // The device talks to node B only; the server's link stays on node A.
    const { seen: heard } = await liveClient(scope, { ...credentials, bridge_url: nodeB.url });
    const marker = await markerHeard(stack, heard, "CLUSTER", 15_000);

    // Node B sent sealed events only, and Redis holds the device as an encrypting one.
    const sentByB = capture.frames.filter((frame) => frame.includes("events:server:srv1"));
    expect(sentByB.some((frame) => frame.includes("sealed_event"))).toBe(true);
    expect(sentByB.some((frame) => frame.includes('"session_event"'))).toBe(false);
    const contents = await redisContents(redis.url, keyPrefix);
    expect(contents.filter((text) => text.includes(":devices:srv1")).join()).toContain("e2e");

    // A replay on node B (from the shared history) comes in the device's form too: sealed_event, never session_event.
    const socket = phoenixSocket(nodeB.url, { params: { token: credentials.device_token } });
    cleanups.push(() => socket.disconnect());
    const first = socket.channel("events:server:srv1", {});
    const lastId = ((await joinOnce(first)).response as { last_event_id: string }).last_event_id;
    first.leave();
    // The history may not reach back to the store's first event (the link joined after events were committed), so
    // the replay asks for the last one only.
    const channel = socket.channel("events:server:srv1", { since_id: formatEventId(Number(lastId) - 1) });
    const replayed: string[] = [];
    channel.on("sealed_event", (payload: { event_id: string }) => void replayed.push(payload.event_id));
    channel.on("session_event", () => void replayed.push("plaintext"));
    expect((await joinOnce(channel)).response).toMatchObject({ replay: "complete", replayed: 1 });
    await until(() => replayed.length > 0, "the replay");
    expect(replayed).not.toContain("plaintext");

    const leaks = [
      ...capture
        .everything(stack.bridge!, stack.bridgeDir, stack.bridgeLog)
        .filter(({ text }) => text.includes(marker))
        .map(({ where }) => `node A ${where}`),
      ...(await redisContents(redis.url, keyPrefix))
        .filter((text) => text.includes(marker))
        .map((text) => `redis ${text.slice(0, 80)}`),
      ...published.messages.filter((text) => text.includes(marker)).map((text) => `published ${text.slice(0, 80)}`),
    ];
    expect(leaks).toEqual([]);
    expect(published.messages.length).toBeGreaterThan(0);
  });
});
