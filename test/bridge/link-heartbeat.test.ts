// The server's link is watched from both ends (docs/bridge.md "Server status", B170, B172, B180): a real server's
// forwarder reaches a real bridge through a TCP proxy that can black-hole the connection (bytes dropped, nothing
// closed). The bridge counts a link silent for serverLinkTimeoutMs (11 s) as down on its own clock, closes it and
// pushes `server_status` offline; the forwarder, whose heartbeat goes unanswered, reconnects, and the apps hear it
// online. A process held up past the heartbeat's period does not drop a live link (B180).
import { Socket } from "phoenix";
import { afterEach, describe, expect, it } from "vitest";
import { HEARTBEAT_STEPS, HeartbeatOffTransport, LinkHeartbeat } from "../../server/forwarder/link-heartbeat.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { blackHoleProxy } from "./black-hole-proxy.ts";
import { cleanups, joinOnce, phoenixSocket, runCleanups, testBridge, until, type TestBridge } from "./helpers.ts";
import { ManualClock } from "./manual-clock.ts";
import { serverPeer, type ServerPeer } from "./server-peer.ts";

afterEach(runCleanups);

/** A device paired on `bridge` (directly), its socket joined to the server's topic, recording `server_status`. */
async function pairedApp(bridge: TestBridge, peer: ServerPeer) {
  const created = await peer.server.request({ method: "POST", url: "/pairing", payload: {} });
  const code = created.json.code as string;
  await until(
    () => bridge.core.registry.findCode(hashPairingCode(code)) !== undefined,
    "code registered on the bridge",
  );
  const pairing = phoenixSocket(bridge.url);
  const paired = await joinOnce(pairing.channel("pairing", { code, device_name: "phone" }));
  pairing.disconnect();
  const socket = phoenixSocket(bridge.url, { params: { token: paired.response.device_token as string } });
  const channel = socket.channel("events:server:srv1", {});
  const statuses: Array<{ online: boolean; since: string }> = [];
  channel.on("server_status", (payload: { online: boolean; since: string }) => void statuses.push(payload));
  return { statuses, joined: await joinOnce(channel) };
}

describe("a black-holed server link", () => {
  it("B170: reads offline once nothing arrived from it for 11 s on the bridge's clock, not before", async () => {
    const bridge = await testBridge();
    const proxy = await blackHoleProxy(bridge.port);
    // The forwarder's own heartbeat is slow here: only the bridge's silence bound is under test.
    const peer = await serverPeer(proxy.url, undefined, {}, { heartbeatMs: 60_000 });
    const app = await pairedApp(bridge, peer);
    expect(app.joined.response).toMatchObject({ server_online: true });

    proxy.blackHole();
    bridge.clock.advance(11_000);
    expect(bridge.sweepIdle()).toBe(0);
    bridge.clock.advance(1);
    expect(bridge.sweepIdle()).toBe(1);
    await until(() => app.statuses.length === 1, "offline pushed to the app");
    expect(app.statuses[0]).toEqual({ online: false, since: new Date(bridge.clock.now()).toISOString() });
    expect(bridge.core.registry.connectedServers).toBe(0);
  });

  it("B172: the forwarder reconnects when its heartbeats go unanswered, and the app hears the server online again", async () => {
    const bridge = await testBridge();
    const proxy = await blackHoleProxy(bridge.port);
    const peer = await serverPeer(proxy.url, undefined, {}, { heartbeatMs: 50 });
    const app = await pairedApp(bridge, peer);
    proxy.blackHole();
    // The unanswered heartbeat makes the forwarder open a new connection through the proxy, which passes.
    await until(() => proxy.accepted >= 2, "the forwarder reconnected");
    // The bridge still holds the silent link (a second join is already_connected) until its silence bound ends it.
    bridge.clock.advance(11_001);
    expect(bridge.sweepIdle()).toBeGreaterThanOrEqual(1);
    await until(() => app.statuses.length === 2, "offline, then online again");
    expect(app.statuses.map((status) => status.online)).toEqual([false, true]);
    expect(bridge.core.registry.connectedServers).toBe(1);
  });

  it("B180: a process held past the period before it read the answer keeps its link", async () => {
    const bridge = await testBridge();
    const clock = new ManualClock();
    const periodMs = 5_000;
    const stepMs = periodMs / HEARTBEAT_STEPS;
    const socket = new Socket(bridge.url, {
      transport: HeartbeatOffTransport as unknown as new (url: string) => object,
    });
    let dropped = 0;
    new LinkHeartbeat(socket, clock, periodMs, () => dropped++);
    // Registered after the heartbeat's own listener: an answer seen here has been seen there.
    const answers: unknown[] = [];
    socket.onMessage((message) => void ((message as { topic: string }).topic === "phoenix" && answers.push(message)));
    cleanups.push(() => new Promise<void>((resolve) => socket.disconnect(() => resolve())));
    socket.connect();
    for (let step = 1; step <= HEARTBEAT_STEPS; step++) {
      await until(() => clock.sleepingFor(stepMs) === 1, `step ${step} of the first period`);
      clock.advance(stepMs);
    }
    // The heartbeat goes out in the microtasks of the last step; no I/O runs before the process is held for two
    // periods, so its answer is still unread when the time is up on the clock.
    for (let microtask = 0; clock.sleepingFor(stepMs) !== 1; microtask++) {
      if (microtask === 100) throw new Error("the second period never began");
      await Promise.resolve();
    }
    clock.advance(2 * periodMs);
    await until(() => answers.length === 1, "the first heartbeat answered");
    // The held time counted as one step: the heartbeat is judged only after four more.
    expect(dropped).toBe(0);
    for (let step = 2; step <= HEARTBEAT_STEPS; step++) {
      await until(() => clock.sleepingFor(stepMs) === 1, `step ${step} of the second period`);
      clock.advance(stepMs);
    }
    await until(() => answers.length === 2, "the second heartbeat answered");
    expect(dropped).toBe(0);
    expect(socket.isConnected()).toBe(true);
  });
});
