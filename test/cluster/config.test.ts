// Starting a cluster node (docs/bridge.md "Cluster", B115): BRIDGE_REDIS_URL is checked like every other variable,
// a Redis that does not answer stops the start with one clear line, and malformed messages on the shared channels
// are dropped, never thrown.
import { describe, expect, it } from "vitest";
import { startBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig, loadBridgeConfig } from "../../bridge/config.ts";
import { decodeClusterMessage, encodeClusterEvent } from "../../bridge/cluster/wire.ts";
import { soleAudienceEvent } from "../../bridge/fanout/audience.ts";
import { closedPort } from "../relay/stack.ts";
import { tempDir } from "../bridge/helpers.ts";
import { MemoryLogger } from "../support/memory-logger.ts";

describe("a cluster node's settings and start", () => {
  it("B115: refuses a BRIDGE_REDIS_URL that is not redis:// in one line; empty means the single node", () => {
    expect(() => loadBridgeConfig({ BRIDGE_REDIS_URL: "http://127.0.0.1:6379" }, 1024)).toThrow(
      /^BRIDGE_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
    );
    expect(() => loadBridgeConfig({ BRIDGE_REDIS_URL: "not a url" }, 1024)).toThrow(/^BRIDGE_REDIS_URL: /);
    expect(loadBridgeConfig({ BRIDGE_REDIS_URL: "" }, 1024).cluster.redisUrl).toBeUndefined();
    expect(loadBridgeConfig({ BRIDGE_REDIS_URL: "rediss://:secret@redis.example:6380/2" }, 1024).cluster.redisUrl).toBe(
      "rediss://:secret@redis.example:6380/2",
    );
    expect(() =>
      defaultBridgeConfig({ dataDir: "d", cluster: { heartbeatMs: 5000, linkTtlMs: 6000 } as never }),
    ).toThrow(/heartbeatMs must be at most a third/);
  });

  it("B115: a Redis that does not answer stops the start with a line naming the URL (never its password)", async () => {
    const port = await closedPort();
    const config = defaultBridgeConfig({
      port: 0,
      dataDir: tempDir(),
      cluster: { redisUrl: `redis://:hunter2@127.0.0.1:${port}` } as never,
    });
    const started = startBridge({ config, log: new MemoryLogger(), sweepEveryMs: 0 });
    await expect(started).rejects.toThrow(
      /^BRIDGE_REDIS_URL: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ does not answer/,
    );
  });

  it("B115: drops malformed messages from the shared events channel", () => {
    const event = soleAudienceEvent("00000000000000000007", { payloadJson: '{"event":{}}' });
    expect(decodeClusterMessage(encodeClusterEvent("n1", "srv1", event, "00000000000000000006"))).toEqual({
      kind: "event",
      node: "n1",
      serverId: "srv1",
      event,
      prev: "00000000000000000006",
    });
    for (const text of [
      "",
      "e\nn1",
      "x\nn1\nsrv1\n1\n2\n{}",
      "e\nn1\nsrv1\nnot-an-id\n00000000000000000006\n{}",
      "e\nn1\nbad server\n00000000000000000007\n00000000000000000006\n{}",
    ]) {
      expect(decodeClusterMessage(text)).toBeUndefined();
    }
  });
});
