// A real server (Fastify + SQLite + forwarder) and a real bridge, with official phoenix clients as apps
// (docs/bridge.md B10-B16): pairing, live events, revoke while connected, and restarts of either side.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Socket } from "phoenix";
import { BRIDGE_CLOSE, MAX_FRAME_BYTES } from "../../client/wire/frames.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { systemClock } from "../../server/clock.ts";
import { joinOnce, phoenixSocket, runCleanups, testBridge, until, type TestBridge, codeOnBridge } from "./helpers.ts";
import { createSession, serverPeer, type ServerPeer, pairingCode } from "./server-peer.ts";

afterEach(runCleanups);

async function pairDevice(bridge: TestBridge, peer: ServerPeer, name = "phone") {
  const created = await peer.server.request({ method: "POST", url: "/pairing", payload: {} });
  expect(created.status).toBe(201);
  const code = created.json.code as string;
  await codeOnBridge(bridge, code, "code registered on the bridge");
  const socket = phoenixSocket(bridge.url);
  const reply = await joinOnce(socket.channel("pairing", { code: code.toLowerCase(), device_name: name }));
  socket.disconnect();
  return { created: created.json, reply };
}

function appSocket(bridge: TestBridge, token: string) {
  const socket = phoenixSocket(bridge.url, { params: { token } });
  const closes: number[] = [];
  socket.onClose((event: { code: number }) => void closes.push(event.code));
  return { socket, closes };
}

function subscribe(socket: Socket, params: Record<string, unknown> = {}) {
  const channel = socket.channel("events:server:srv1", params);
  const received: string[] = [];
  channel.on("session_event", (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id));
  return { channel, received, joined: joinOnce(channel) };
}

describe("bridge with a real server", () => {
  it("pairs a device, then delivers live events in order (B10, B11)", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { created, reply } = await pairDevice(bridge, peer);
    expect(created).toMatchObject({
      server_id: "srv1",
      bridge_url: expect.any(String),
      server_url: "http://127.0.0.1:8787",
    });
    expect(created.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    expect(reply.status).toBe("ok");
    expect(reply.response).toMatchObject({
      server_id: "srv1",
      device_id: expect.stringMatching(/^dev_/),
      server_url: "http://127.0.0.1:8787",
    });
    const token = reply.response.device_token as string;
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    // The device exists on the server before the app holds its token, and the token works over HTTP too.
    const devices = await peer.server.request({ method: "GET", url: "/devices" });
    expect(devices.json.devices).toEqual([
      expect.objectContaining({ device_id: reply.response.device_id, name: "phone", revoked_at: null }),
    ]);
    expect(JSON.stringify(devices.json)).not.toMatch(/hash/);
    expect((await peer.server.request({ method: "GET", url: "/sessions", token })).status).toBe(200);

    const app = appSocket(bridge, token);
    const feed = subscribe(app.socket);
    expect((await feed.joined).status).toBe("ok");
    await createSession(peer);
    await createSession(peer);
    const latest = formatEventId(peer.server.runtime.ctx.events.latestId);
    await until(() => feed.received.includes(latest), "live events delivered");
    expect(feed.received).toEqual([...feed.received].sort());
    expect(new Set(feed.received).size).toBe(feed.received.length);
  });

  it("refuses a reused code; a device pairs and lists devices for its own person only (B12)", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const code = await pairingCode(peer);
    await codeOnBridge(bridge, code, "code registered");
    const first = await joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "a" }));
    const second = await joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "b" }));
    expect(first.status).toBe("ok");
    expect(second).toEqual({ status: "error", response: { reason: "invalid_code" } });
    const token = first.response.device_token as string;
    // Since people (docs/people.md "Routes"): "Add my tablet" is any device's, for its own person; pairing for someone
    // else and other people's devices are the admin role's (test/people N7, N8, N13).
    const mine = await peer.server.request({ method: "POST", url: "/pairing", payload: {}, token });
    expect(mine.status).toBe(201);
    const devices = await peer.server.request({ method: "GET", url: "/devices", token });
    expect(devices.status).toBe(200);
    const person = first.response.person_id as string;
    expect(devices.json.devices.map((d: { person_id: string }) => d.person_id)).toEqual([person]);
    expect((await peer.server.request({ method: "DELETE", url: "/devices/nope" })).status).toBe(404);
  });

  it("revokes a connected device: its socket closes with 4001 and it can no longer join or call HTTP (B13)", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { reply } = await pairDevice(bridge, peer);
    const token = reply.response.device_token as string;
    const app = appSocket(bridge, token);
    expect((await subscribe(app.socket).joined).status).toBe("ok");
    const revoked = await peer.server.request({
      method: "DELETE",
      url: `/devices/${String(reply.response.device_id)}`,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json.device.revoked_at).toEqual(expect.any(String));
    await until(() => app.closes.includes(BRIDGE_CLOSE.deviceRevoked), "revoked socket closed with 4001");
    app.socket.disconnect();
    const again = appSocket(bridge, token);
    expect(await subscribe(again.socket).joined).toEqual({ status: "error", response: { reason: "unauthorized" } });
    expect((await peer.server.request({ method: "GET", url: "/sessions", token })).status).toBe(401);
  });

  it("shows when each device was last seen, on the bridge or over HTTP, to the minute (B28)", async () => {
    let offset = 0;
    const clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url, undefined, { clock });
    const { reply } = await pairDevice(bridge, peer);
    const deviceId = reply.response.device_id as string;
    const token = reply.response.device_token as string;
    const pairing = peer.server.runtime.ctx.pairing;
    const seenAt = () => pairing.listDevices().find((d) => d.device_id === deviceId)?.last_seen_at ?? null;
    // The pairing socket carries no device token: the device has not been seen yet.
    expect(seenAt()).toBeNull();

    const app = appSocket(bridge, token);
    expect((await subscribe(app.socket).joined).status).toBe("ok");
    // Sightings are batched for a second of the bridge's clock.
    bridge.clock.advance(1000);
    await until(() => seenAt() !== null, "the bridge reported the device's socket");
    const onBridge = seenAt()!;

    // HTTP requests count too, but a device polling every second costs one write a minute.
    offset += 30_000;
    expect((await peer.server.request({ method: "GET", url: "/sessions", token })).status).toBe(200);
    expect(seenAt()).toBe(onBridge);
    offset += 31_000;
    expect((await peer.server.request({ method: "GET", url: "/sessions", token })).status).toBe(200);
    expect(Date.parse(seenAt()!) - Date.parse(onBridge)).toBeGreaterThanOrEqual(61_000);
    const overHttp = seenAt()!;

    // A device that stays connected is reported by the bridge's minute sweep; the admin's list shows it.
    offset += 61_000;
    bridge.clock.advance(60_000);
    await until(() => bridge.clock.sleepingFor(1000) === 1, "the minute sweep noted the connected device");
    bridge.clock.advance(1000);
    await until(() => seenAt() !== overHttp, "the sweep reported the connected device");
    const listed = await peer.server.request({ method: "GET", url: "/devices" });
    expect(listed.json.devices).toEqual([expect.objectContaining({ device_id: deviceId, last_seen_at: seenAt() })]);
  });

  it("shows whether each device is connected now: yes while its socket is open, no once it closed, unknown without a bridge link (B44)", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { reply } = await pairDevice(bridge, peer);
    const deviceId = reply.response.device_id as string;
    const token = reply.response.device_token as string;
    const connected = () =>
      peer.server.runtime.ctx.pairing.listDevices().find((d) => d.device_id === deviceId)?.connected;
    // Nothing said yet on this link: unknown, not "no".
    expect(connected()).toBeNull();

    const app = appSocket(bridge, token);
    expect((await subscribe(app.socket).joined).status).toBe("ok");
    bridge.clock.advance(1000);
    await until(() => connected() === true, "the bridge reported the open socket");
    const listed = await peer.server.request({ method: "GET", url: "/devices" });
    expect(listed.json.devices).toEqual([expect.objectContaining({ device_id: deviceId, connected: true })]);

    app.socket.disconnect();
    await until(() => bridge.clock.sleepingFor(1000) === 1, "the close was noted");
    bridge.clock.advance(1000);
    await until(() => connected() === false, "the bridge reported the closed socket");

    await bridge.close();
    await until(() => connected() === null, "the lost link made it unknown");
  });

  it("survives a bridge restart: the server forwards what was published meanwhile and a rejoining app gets the replay (B14)", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { reply } = await pairDevice(bridge, peer);
    const token = reply.response.device_token as string;
    await createSession(peer);
    const seen = formatEventId(peer.server.runtime.ctx.events.latestId);
    await until(() => bridge.core.registry.get("srv1")?.lastId === seen, "first event relayed");
    await bridge.close();

    // HTTP keeps serving while the bridge is away; the events wait in the store.
    await createSession(peer);
    await createSession(peer);
    const latest = formatEventId(peer.server.runtime.ctx.events.latestId);
    const reborn = await testBridge({}, bridge.dataDir, bridge.port);
    await until(() => reborn.core.registry.get("srv1")?.lastId === latest, "events published meanwhile forwarded");

    // The device list came back from the bridge's data dir: the app's token is still good.
    const app = appSocket(reborn, token);
    const feed = subscribe(app.socket, { since_id: seen });
    const joined = await feed.joined;
    const missed = Number(latest) - Number(seen);
    expect(missed).toBeGreaterThanOrEqual(2);
    expect(joined.response).toMatchObject({ replay: "complete", replayed: missed, last_event_id: latest });
    await until(() => feed.received.length === missed, "replayed events");
    expect(feed.received.at(-1)).toBe(latest);
  });

  it("survives a server restart without duplicates or loss (B15)", async () => {
    const bridge = await testBridge();
    const dataDir = (await import("./helpers.ts")).tempDir();
    const peer = await serverPeer(bridge.url, dataDir);
    const { reply } = await pairDevice(bridge, peer);
    const app = appSocket(bridge, reply.response.device_token as string);
    const feed = subscribe(app.socket);
    await feed.joined;
    for (let i = 0; i < 5; i++) await createSession(peer);
    const before = peer.server.runtime.ctx.events.latestId;
    await until(() => feed.received.includes(formatEventId(before)), "events before the restart");
    await peer.stop();

    const again = await serverPeer(bridge.url, dataDir);
    for (let i = 0; i < 3; i++) await createSession(again);
    const latest = formatEventId(again.server.runtime.ctx.events.latestId);
    await until(() => feed.received.includes(latest), "events after the restart");
    expect(new Set(feed.received).size).toBe(feed.received.length);
    expect(feed.received).toEqual([...feed.received].sort());
    expect(bridge.core.metrics.eventsRelayed).toBe(feed.received.length);
  });

  it("pushes a stub for an event too big for one frame and goes on: the next event is not stuck (B24)", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const { reply } = await pairDevice(bridge, peer);
    const app = appSocket(bridge, reply.response.device_token as string);
    const channel = app.socket.channel("events:server:srv1", {});
    const events: Array<Record<string, unknown>> = [];
    channel.on("session_event", (payload: { event: Record<string, unknown> }) => void events.push(payload.event));
    expect((await joinOnce(channel)).status).toBe("ok");
    const sessionId = await createSession(peer);
    const big = "x".repeat(Math.ceil(MAX_FRAME_BYTES / 3) + 1024);
    const appended = await peer.server.request({
      method: "POST",
      url: `/sessions/${sessionId}/messages`,
      payload: { role: "user", content: big },
    });
    expect(appended.status).toBe(201);
    await createSession(peer);
    const latest = formatEventId(peer.server.runtime.ctx.events.latestId);
    await until(() => events.some((event) => event.event_id === latest), "the event after the big one");
    const stub = events.find((event) => event.type === "message_appended");
    expect(stub).toEqual({
      event_id: expect.any(String),
      type: "message_appended",
      session_id: sessionId,
      truncated: true,
    });
    expect(events.map((event) => event.event_id)).toEqual([...events.map((event) => event.event_id)].sort());
    expect(app.closes).toEqual([]);
  });

  it("answers a pairing whose redeem throws with an error, and keeps forwarding (crash-proof forwarder)", async () => {
    // A long bridge-side wait: an answer can only come from the server, not from the bridge's own timeout.
    const bridge = await testBridge({ pairingTimeoutMs: 60_000 });
    const peer = await serverPeer(bridge.url);
    const redeem = vi.spyOn(peer.server.runtime.ctx.pairing, "redeem").mockImplementation(() => {
      throw new Error("SQLITE_BUSY: database is locked");
    });
    const code = await pairingCode(peer);
    await codeOnBridge(bridge, code, "code registered on the bridge");
    const reply = await joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "phone" }));
    expect(redeem).toHaveBeenCalledTimes(1);
    expect(reply).toEqual({ status: "error", response: { reason: "server_unavailable" } });
    redeem.mockRestore();

    // The forwarder survived: a device paired now gets live events.
    const { reply: paired } = await pairDevice(bridge, peer);
    const app = appSocket(bridge, paired.response.device_token as string);
    const feed = subscribe(app.socket);
    expect((await feed.joined).status).toBe("ok");
    await createSession(peer);
    const latest = formatEventId(peer.server.runtime.ctx.events.latestId);
    await until(() => feed.received.includes(latest), "live events after the failed pairing");
  });
});
