// Several bridge URLs (C150-C153): a real server, two real single-node bridges on 127.0.0.1 and the library over the
// official phoenix client. Two single-node bridges share no state, so where a cluster would carry the server's link
// over by itself, these tests move it: the forwarder is stopped and started again towards the other bridge, as the
// server does when its node dies. What they prove is the client's part: the next URL is tried, the channel rejoins
// there with the cursor, and the app hears the store's sequence exactly once, in order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../bridge/config.ts";
import { connect, type ConnectOptions } from "../../client/connection/client.ts";
import { pair } from "../../client/connection/pair.ts";
import { bridgeUrlsOf } from "../../client/transport/bridge-urls.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { startForwarder } from "../../server/forwarder/forwarder.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { MemoryLogger } from "../support/memory-logger.ts";
import { CuttableProxy } from "./support/proxy.ts";
import { FAST_RECONNECT, NodeWebSocket, until, untilLive } from "./support/stack.ts";
import { expectExactly } from "./support/heard-exactly.ts";
import { useStack } from "../support/use-stack.ts";
import { freePort } from "../support/ports.ts";

const scope = useStack();

/** A port nothing listens on: bound, then released. */
async function closedPortUrl(): Promise<string> {
  return `ws://127.0.0.1:${await freePort()}/socket`;
}

/** A second single-node bridge: it knows nothing of the server until the server's link joins it. */
async function startOtherBridge(): Promise<{ bridge: RunningBridge; url: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "client-bridge-b-"));
  scope.onClose(() => rmSync(dataDir, { recursive: true, force: true }));
  const bridge = scope.own(
    await startBridge({
      config: defaultBridgeConfig({ port: 0, dataDir, replayEvents: 5 }),
      clock: new ManualClock(),
      log: new MemoryLogger(),
      sweepEveryMs: 0,
    }),
  );
  return { bridge, url: `ws://127.0.0.1:${bridge.port}/socket` };
}

/**
 * The server's link moves to another bridge, and the test waits until that bridge knows the server's devices: in a
 * cluster every node knows them from Redis; a single node learns them from the link's grants, and would refuse an
 * app that came first with `unauthorized`.
 */
async function moveServerLink(to: RunningBridge, url: string): Promise<void> {
  const s = scope.stack;
  await s.forwarder.stop();
  s.forwarder = startForwarder(s.server.runtime.ctx, {
    bridgeUrl: url,
    reconnectAfterMs: () => 20,
    app: s.server.runtime.app,
  });
  await until(() => (to.core.registry.get("srv1")?.devices.size ?? 0) > 0, "the other bridge knows the device");
}

async function connected(bridgeUrls: string[], options: Partial<ConnectOptions> = {}) {
  const credentials = await scope.stack.pair();
  const client = scope.own(connect(credentials, { ...FAST_RECONNECT, pollWaitMs: 2000, bridgeUrls, ...options }));
  const heard: AnyEvent[] = [];
  client.on("*", (event) => heard.push(event));
  await untilLive(client);
  return { client, heard, start: client.cursor! };
}

async function appendMany(sessionId: string, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await scope.stack.append(sessionId, `m${i}`);
}

describe("several bridge URLs", () => {
  it("bridgeUrlsOf reads one URL, a comma list or a list, and refuses none (C150)", () => {
    expect(bridgeUrlsOf("ws://a/socket")).toEqual(["ws://a/socket"]);
    expect(bridgeUrlsOf(" ws://a/socket, ws://b/socket ,")).toEqual(["ws://a/socket", "ws://b/socket"]);
    expect(bridgeUrlsOf(["ws://a/socket", "ws://b/socket"])).toEqual(["ws://a/socket", "ws://b/socket"]);
    expect(() => bridgeUrlsOf(" , ")).toThrow();
    expect(() => bridgeUrlsOf([])).toThrow();
  });

  it("[a closed port, a live bridge] goes live on the second and hears events live there (C150)", async () => {
    const stack = await scope.start({ replayEvents: 5 });
    const { client, heard, start } = await connected([await closedPortUrl(), stack.bridgeUrl]);
    const sessionId = await stack.createSession();
    await appendMany(sessionId, 0, 5);
    await expectExactly(scope.stack, heard, start);
    expect(client.status.get().state).toBe("live");
  });

  it("the same list as one comma-separated bridge_url, pairing skipping the closed port (C150)", async () => {
    const stack = await scope.start({ replayEvents: 5 });
    const code = await stack.pairingCode();
    const listed = `${await closedPortUrl()},${stack.bridgeUrl}`;
    const credentials = await pair({ bridgeUrl: listed, code, deviceName: "phone", WebSocket: NodeWebSocket });
    expect(credentials.bridge_url).toBe(listed);
    const client = scope.own(
      connect({ ...credentials, server_url: stack.serverUrl }, { ...FAST_RECONNECT, pollWaitMs: 2000 }),
    );
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    await untilLive(client);
    const start = client.cursor!;
    await appendMany(await stack.createSession(), 0, 3);
    await expectExactly(scope.stack, heard, start);
  });

  it("a bridge closed mid-stream: the library moves to the next URL and misses nothing (C151)", async () => {
    const stack = await scope.start({ replayEvents: 5 });
    const b = await startOtherBridge();
    const other = b.bridge;
    const { client, heard, start } = await connected([stack.bridgeUrl, b.url]);
    const sessionId = await stack.createSession();
    await appendMany(sessionId, 0, 5);
    await moveServerLink(other, b.url);
    await appendMany(sessionId, 5, 5);
    await stack.stopBridge();
    await appendMany(sessionId, 10, 5);
    // The server's link and the app's socket are both on the second bridge, and the app is live there.
    await until(() => other.core.metrics.socketsOpen >= 2, "the app's socket on the second bridge");
    await until(() => client.status.get().state === "live", "live on the second bridge");
    await appendMany(sessionId, 15, 5);
    await expectExactly(scope.stack, heard, start);
    expect(client.status.get().state).toBe("live");
  });

  it("a dead link (no close) noticed by liveness: the next URL is tried and nothing is lost (C152)", async () => {
    const stack = await scope.start({ replayEvents: 5 });
    const b = await startOtherBridge();
    const other = b.bridge;
    const s = stack;
    const proxy = scope.own(await CuttableProxy.start(() => s.bridgePort));
    const { client, heard, start } = await connected([proxy.url, b.url], {
      liveness: { intervalMs: 300, timeoutMs: 300 },
    });
    const sessionId = await stack.createSession();
    await appendMany(sessionId, 0, 3);
    await moveServerLink(other, b.url);
    proxy.blackhole();
    await appendMany(sessionId, 3, 3);
    await until(() => other.core.metrics.socketsOpen >= 2, "the app's socket on the second bridge");
    await until(() => client.status.get().state === "live", "live on the second bridge");
    await appendMany(sessionId, 6, 3);
    await expectExactly(scope.stack, heard, start);
  });
});
