// A node killed (docs/bridge.md "Cluster", B111–B112): node A runs in a process of its own and is SIGKILLed with the
// server's link and an app on it. The app (the client library, given both nodes' URLs) moves to node B and resumes
// from its cursor; the server's forwarder, behind a balancer, rejoins node B once A's link claim lapses and resumes
// from the shared last relayed id. The app hears the store's sequence exactly once, in order.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import { pair } from "../../client/connection/pair.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { startForwarder } from "../../server/forwarder/forwarder.ts";
import { cleanups, until } from "../bridge/helpers.ts";
import { FAST_RECONNECT, untilLive } from "../client/support/stack.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { startBalancer } from "./balancer.ts";
import { childNode } from "./child-node.ts";
import { clusterNode, useRedis } from "./support.ts";

const redisOf = useRedis();

/** Node A as a child process; resolves once it listens. */
const nodeProcess = (keyPrefix: string, nodeId: string) => childNode(redisOf().url, keyPrefix, nodeId);

async function storeEvents(server: TestServer): Promise<AnyEvent[]> {
  const page = await server.request({ method: "GET", url: "/events?since_id=0&limit=1000" });
  return (page.json as { events: AnyEvent[] }).events;
}

describe("a node killed", () => {
  it("B111: apps move to another node and resume, the server's link rejoins there: nothing lost, nothing twice", async () => {
    const keyPrefix = `kill${Date.now()}`;
    const a = await nodeProcess(keyPrefix, "nodeA");
    const b = await clusterNode(redisOf(), keyPrefix, "nodeB");
    const balancer = await startBalancer([a.port, b.port]);
    cleanups.push(() => balancer.close());

    const server = await startTestServer({ server: { server_id: "srv1", public_url: "http://127.0.0.1:1" } });
    cleanups.push(() => server.close(true));
    const forwarder = startForwarder(server.runtime.ctx, {
      bridgeUrl: `ws://127.0.0.1:${balancer.port}/socket`,
      reconnectAfterMs: () => 20,
      app: server.runtime.app,
    });
    cleanups.push(() => forwarder.stop());

    const created = await server.request({ method: "POST", url: "/pairing", payload: {} });
    const code = (created.json as { code: string }).code;
    await until(
      () => b.core.registry.findCode(hashPairingCode(code)) !== undefined,
      "the code reached the cluster",
      10_000,
    );
    // The server's URL as paired is unreachable (127.0.0.1:1): the app hears events only through the bridge, so what
    // it missed must come from the shared history, never from polling the server.
    const credentials = await pair({
      bridgeUrl: a.url,
      code,
      deviceName: "phone",
      WebSocket: FAST_RECONNECT.WebSocket,
    });
    // The app comes back after the server's link has (A's claim lapses in ~1 s): what it missed meanwhile is replayed.
    const client = connect(credentials, {
      ...FAST_RECONNECT,
      reconnectAfterMs: () => 2500,
      pollWaitMs: 2000,
      bridgeUrls: [a.url, b.url],
    });
    cleanups.push(() => client.close());
    const heard: string[] = [];
    client.on("*", (event) => void heard.push(event.event_id));
    await untilLive(client);

    const session = async () =>
      expect((await server.request({ method: "POST", url: "/sessions", payload: {} })).status).toBe(201);
    for (let i = 0; i < 5; i++) await session();
    await until(() => heard.length >= 5, "events heard through node A", 10_000);
    expect(b.core.registry.get("srv1")?.link).toBeUndefined();

    a.child.kill("SIGKILL");
    for (let i = 0; i < 10; i++) await session();
    await until(() => b.core.registry.get("srv1")?.link !== undefined, "the server's link rejoined node B", 15_000);
    for (let i = 0; i < 5; i++) await session();
    await until(
      () => b.core.metrics.replayHits + b.core.metrics.replayMisses > 0,
      "the app rejoined on node B",
      15_000,
    );
    for (let i = 0; i < 5; i++) await session();
    const expected = (await storeEvents(server)).map((event) => event.event_id);
    await until(() => heard.length >= expected.length, `all ${expected.length} events heard`, 15_000);
    // One more chat: a repeat of what was heard would come before its events, in order.
    await session();
    const all = (await storeEvents(server)).map((event) => event.event_id);
    await until(() => heard.at(-1) === all.at(-1), "the last chat's events heard", 15_000);
    expect(heard).toEqual(all);
    // The app's rejoin on B was served from the shared history, not by a gap filled over HTTP.
    expect(b.core.metrics.replayHits).toBeGreaterThanOrEqual(1);
    expect(b.core.metrics.replayMisses).toBe(0);
  }, 60_000);
});
