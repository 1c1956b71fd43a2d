// The server's link is watched from both ends (docs/bridge.md "Server status", B170, B172, B180): a real server's
// forwarder reaches a real bridge through a TCP proxy that can black-hole the connection (bytes dropped, nothing
// closed). The bridge counts a link silent for serverLinkTimeoutMs (11 s) as down on its own clock, closes it and
// pushes `server_status` offline; the forwarder, whose heartbeat (on its server's clock) goes unanswered, reconnects,
// and the apps hear it online.
import { Socket } from "phoenix";
import { afterEach, describe, expect, it } from "vitest";
import { HeartbeatOffTransport, LinkHeartbeat } from "../../server/forwarder/link-heartbeat.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { blackHoleProxy } from "./black-hole-proxy.ts";
import { cleanups, joinOnce, phoenixSocket, runCleanups, testBridge, until, type TestBridge } from "./helpers.ts";
import { ManualClock } from "./manual-clock.ts";
import { serverPeer, type ServerPeer } from "./server-peer.ts";

afterEach(runCleanups);

/** The forwarder's heartbeat in B172, on its server's clock (a period no other timer of the server sleeps). */
const HEARTBEAT_MS = 4_321;

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
    // The forwarder's heartbeat is on its server's clock: it beats only when the test moves that clock, never because
    // the process was too busy to read an answer in time (which dropped the link for nothing under load).
    const serverClock = new ManualClock();
    const peer = await serverPeer(proxy.url, undefined, { clock: serverClock }, { heartbeatMs: HEARTBEAT_MS });
    const app = await pairedApp(bridge, peer);
    expect(proxy.accepted).toBe(1);
    proxy.blackHole();
    // The first heartbeat goes into the hole; when the next is due it is still unanswered, and the forwarder opens a
    // new connection through the proxy, which passes.
    for (const beat of ["first", "second"]) {
      await until(() => serverClock.sleepingFor(HEARTBEAT_MS) === 1, `the ${beat} heartbeat due`);
      serverClock.advance(HEARTBEAT_MS);
    }
    await until(() => proxy.accepted === 2, "the forwarder reconnected");
    // The bridge still holds the silent link (a second join is already_connected) until its silence bound ends it.
    bridge.clock.advance(11_001);
    expect(bridge.sweepIdle()).toBeGreaterThanOrEqual(1);
    await until(() => app.statuses.length === 2, "offline, then online again");
    expect(app.statuses.map((status) => status.online)).toEqual([false, true]);
    expect(bridge.core.registry.connectedServers).toBe(1);
  });

  it("B180: a heartbeat answered before the next is due keeps the link, round after round", async () => {
    const bridge = await testBridge();
    const clock = new ManualClock();
    const socket = new Socket(bridge.url, {
      transport: HeartbeatOffTransport as unknown as new (url: string) => object,
    });
    let dropped = 0;
    new LinkHeartbeat(socket, clock, HEARTBEAT_MS, () => dropped++);
    // Registered after the heartbeat's own listener: an answer seen here has been seen there.
    const answers: unknown[] = [];
    socket.onMessage((message) => void ((message as { topic: string }).topic === "phoenix" && answers.push(message)));
    cleanups.push(() => new Promise<void>((resolve) => socket.disconnect(() => resolve())));
    socket.connect();
    for (let beat = 1; beat <= 3; beat++) {
      await until(() => clock.sleepingFor(HEARTBEAT_MS) === 1, `heartbeat ${beat} due`);
      clock.advance(HEARTBEAT_MS);
      await until(() => answers.length === beat, `heartbeat ${beat} answered`);
    }
    await until(() => clock.sleepingFor(HEARTBEAT_MS) === 1, "heartbeat 4 due");
    clock.advance(HEARTBEAT_MS);
    expect(dropped).toBe(0);
    expect(socket.isConnected()).toBe(true);
  });
});
