// One suite, run against both shared-state implementations (docs/bridge.md "Shared state", S1-S9): the single
// node's `MemoryState` and a cluster node's `ClusterNode` on a real redis-server started here. Each test drives a
// real bridge over loopback with the official phoenix client and a fake server peer, and asks only what an app or a
// server can see, so it cannot tell which implementation answers.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { formatEventId } from "../../client/wire/index.ts";
import type { BridgeConfig } from "../../bridge/config.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { startRedis, type TestRedis } from "../support/redis.ts";
import {
  device,
  fakeServer,
  joinOnce,
  phoenixSocket,
  pushOnce,
  runCleanups,
  testBridge,
  testEvent,
  until,
  untilAsync,
  type TestBridge,
  answerPairings,
} from "./helpers.ts";

let redis: TestRedis | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => redis?.stop());
afterEach(runCleanups);

type Rig = (overrides?: Partial<BridgeConfig>) => Promise<TestBridge>;

const memory: Rig = (overrides = {}) => testBridge(overrides);
// A cluster of one node under a key prefix of its own, with short link timings (as test/cluster/support.ts).
const cluster: Rig = (overrides = {}) =>
  testBridge({
    ...overrides,
    cluster: {
      redisUrl: redis!.url,
      keyPrefix: `s${randomUUID().slice(0, 8)}`,
      nodeId: "n1",
      linkTtlMs: 900,
      heartbeatMs: 150,
      inboxTimeoutMs: 2000,
    },
  });

const CODE = "AAAAABBBBB";
const codeGrant = (bridge: TestBridge, code = CODE) => ({
  code_hash: sha256Hex(code),
  expires_at: bridge.clock.now() + 600_000,
});

/** An app socket joined to the server's topic, recording events, statuses and closes. */
async function appOn(bridge: TestBridge, token: string, params: Record<string, unknown> = {}) {
  const socket = phoenixSocket(bridge.url, { params: { token } });
  const closes: number[] = [];
  socket.onClose((event: { code: number }) => void closes.push(event.code));
  const channel = socket.channel("events:server:srv1", params);
  const received: string[] = [];
  const statuses: Array<{ online: boolean; since: string }> = [];
  channel.on("session_event", (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id));
  channel.on("server_status", (payload: { online: boolean; since: string }) => void statuses.push(payload));
  return { socket, channel, received, statuses, closes, joined: await joinOnce(channel) };
}

function tryCode(bridge: TestBridge, code = CODE) {
  return joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "phone" }));
}

describe.each([
  ["memory", memory],
  ["redis", cluster],
] as const)("shared state: %s", (_name, rig) => {
  it("S1: registers a server on first use, refuses a wrong credential, a second live link and ids past the cap", async () => {
    const bridge = await rig({ maxServers: 2 });
    expect((await fakeServer(bridge.url)).joined).toEqual({
      status: "ok",
      response: { resume_after: formatEventId(0), features: ["audience"] },
    });
    expect((await fakeServer(bridge.url)).joined).toEqual({
      status: "error",
      response: { reason: "already_connected" },
    });
    expect((await fakeServer(bridge.url, { credential: "x".repeat(48) })).joined).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    expect((await fakeServer(bridge.url, { serverId: "srv2" })).joined.status).toBe("ok");
    expect((await fakeServer(bridge.url, { serverId: "srv3" })).joined).toEqual({
      status: "error",
      response: { reason: "registration_closed" },
    });
  });

  it("S2: pairs with a code once; a second try is invalid_code; a code whose server is away is server_unavailable", async () => {
    const bridge = await rig();
    const server = await fakeServer(bridge.url, { codes: [codeGrant(bridge), codeGrant(bridge, "CCCCCDDDDD")] });
    answerPairings(server, () => "d1");
    expect(await tryCode(bridge)).toEqual({
      status: "ok",
      response: { server_id: "srv1", device_id: "d1", device_token: "t".repeat(43), server_url: "http://s" },
    });
    expect(await tryCode(bridge)).toEqual({ status: "error", response: { reason: "invalid_code" } });
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the server's link ended");
    expect(await tryCode(bridge, "CCCCCDDDDD")).toEqual({
      status: "error",
      response: { reason: "server_unavailable" },
    });
  });

  it("S10: a code the bridge has not heard of, for a named server not linked yet, is server_unavailable and not counted", async () => {
    const bridge = await rig();
    const early = (code: string) =>
      joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "phone", server_id: "srv1" }));
    // The server made the code before its first link: the bridge has never heard of either.
    expect(await early(CODE)).toEqual({ status: "error", response: { reason: "server_unavailable" } });
    expect(bridge.core.metrics.pairingFailures).toBe(0);
    // Without the server's id the bridge cannot tell it from a guess.
    expect(await tryCode(bridge)).toEqual({ status: "error", response: { reason: "invalid_code" } });
    const server = await fakeServer(bridge.url, { codes: [codeGrant(bridge)] });
    answerPairings(server, () => "d1");
    expect((await early(CODE)).status).toBe("ok");
    // Once the link is up, an unknown code is a counted guess again.
    expect(await early("ZZZZZ00000")).toEqual({ status: "error", response: { reason: "invalid_code" } });
    expect(bridge.core.metrics.pairingFailures).toBe(2);
  });

  it("S11: keeps the app config a server's join carries and answers it on GET /app-config.json", async () => {
    const bridge = await rig();
    const config = {
      server_id: "srv1",
      server_url: "http://192.168.1.5:8787",
      bridge_url: bridge.url,
      app_url: bridge.appUrl,
    };
    expect((await fakeServer(bridge.url, { appConfig: config })).joined.status).toBe("ok");
    const response = await fetch(`${bridge.httpUrl}/app-config.json`);
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: config });
  });

  it("S3: counts failed pairing attempts per address: past the limit even a valid code is rate_limited", async () => {
    const bridge = await rig({ pairingFailuresPerAddress: 2 });
    await fakeServer(bridge.url, { codes: [codeGrant(bridge)] });
    expect((await tryCode(bridge, "ZZZZZ00000")).response).toEqual({ reason: "invalid_code" });
    expect((await tryCode(bridge, "ZZZZZ11111")).response).toEqual({ reason: "invalid_code" });
    await untilAsync(() => bridge.core.pairing.pairingLimited("127.0.0.1"), "both failures counted");
    expect((await tryCode(bridge)).response).toEqual({ reason: "rate_limited" });
  });

  it("S4: replays from the history when it covers since_id, says gap when it does not or for another store", async () => {
    const bridge = await rig({ replayEvents: 3 });
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    for (let n = 1; n <= 5; n++)
      expect((await pushOnce(server.channel, "session_event", { event: testEvent(n) })).status).toBe("ok");
    const covered = await appOn(bridge, phone.token, { since_id: formatEventId(3), epoch: "epoch-1" });
    expect(covered.joined.response).toEqual({
      replay: "complete",
      replayed: 2,
      last_event_id: formatEventId(5),
      epoch: "epoch-1",
      server_online: true,
    });
    await until(() => covered.received.length === 2, "the replay");
    expect(covered.received).toEqual([formatEventId(4), formatEventId(5)]);
    expect(
      (await appOn(bridge, phone.token, { since_id: formatEventId(1), epoch: "epoch-1" })).joined.response,
    ).toMatchObject({ replay: "gap" });
    expect(
      (await appOn(bridge, phone.token, { since_id: formatEventId(4), epoch: "epoch-0" })).joined.response,
    ).toMatchObject({ replay: "gap" });
  });

  it("S5: a device the server withdraws is closed with 4001 and refused after; an unknown token is unauthorized", async () => {
    const bridge = await rig();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const app = await appOn(bridge, phone.token);
    expect(app.joined.status).toBe("ok");
    expect(await pushOnce(server.channel, "grants", { devices: [], codes: [] })).toEqual({
      status: "ok",
      response: {},
    });
    await until(() => app.closes.includes(BRIDGE_CLOSE.deviceRevoked), "the withdrawn device's socket closed");
    expect((await appOn(bridge, phone.token)).joined).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    expect((await appOn(bridge, "nobody-".padEnd(48, "n"))).joined).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
  });

  it("S6: reports the devices seen and connected to their server (devices_seen)", async () => {
    const bridge = await rig();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const seen: Array<{ device_ids: string[]; connected: string[] }> = [];
    server.channel.on(
      "devices_seen",
      (payload: { device_ids: string[]; connected: string[] }) => void seen.push(payload),
    );
    await appOn(bridge, phone.token);
    bridge.sightings.flush();
    await until(() => seen.length === 1, "devices_seen reached the server");
    expect(seen[0]).toEqual({ device_ids: ["d1"], connected: ["d1"] });
  });

  it("S7: the join says whether the server is online, and every change of its link is pushed as server_status", async () => {
    const bridge = await rig();
    const phone = device("d1");
    const first = await fakeServer(bridge.url, { devices: [phone.grant] });
    const app = await appOn(bridge, phone.token);
    expect(app.joined.response).toMatchObject({ server_online: true });
    first.socket.disconnect();
    await until(() => app.statuses.length === 1, "offline pushed");
    expect(app.statuses[0]).toEqual({ online: false, since: new Date(bridge.clock.now()).toISOString() });
    expect((await appOn(bridge, phone.token)).joined.response).toMatchObject({ server_online: false });
    bridge.clock.advance(1000);
    await fakeServer(bridge.url, { devices: [phone.grant] });
    await until(() => app.statuses.length === 2, "online pushed");
    expect(app.statuses[1]).toEqual({ online: true, since: new Date(bridge.clock.now()).toISOString() });
  });

  it("S8: a session_deleted drops that session's events from the replay history; the rest replays complete", async () => {
    const bridge = await rig();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const push = async (n: number, sessionId: string, type = "message_appended") =>
      expect(
        (
          await pushOnce(server.channel, "session_event", {
            event: { event_id: formatEventId(n), type, session_id: sessionId },
          })
        ).status,
      ).toBe("ok");
    await push(1, "keep");
    await push(2, "gone");
    await push(3, "keep");
    await push(4, "gone");
    await push(5, "gone", "session_deleted");
    const app = await appOn(bridge, phone.token, { since_id: formatEventId(0), epoch: "epoch-1" });
    expect(app.joined.response).toMatchObject({ replay: "complete", replayed: 2, last_event_id: formatEventId(5) });
    await until(() => app.received.length === 2, "the replay");
    expect(app.received).toEqual([formatEventId(1), formatEventId(3)]);
  });

  it("S12: a forget drops the events it names from the replay history, whatever their forms; the rest replays complete", async () => {
    const bridge = await rig();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    // Events whose plain form names no session (as the bridge sees a sealed-only server's): only their ids can.
    for (let n = 1; n <= 5; n++)
      expect(
        (await pushOnce(server.channel, "session_event", { event: { event_id: formatEventId(n), type: "x" } })).status,
      ).toBe("ok");
    const forget = (eventIds: unknown) => pushOnce(server.channel, "forget", { event_ids: eventIds });
    expect(await forget([formatEventId(2), formatEventId(4), formatEventId(9)])).toEqual({
      status: "ok",
      response: {},
    });
    for (const bad of [[], ["2"], Array.from({ length: 1001 }, (_, i) => formatEventId(i + 1))])
      expect(await forget(bad)).toEqual({ status: "error", response: { reason: "invalid_params" } });
    const app = await appOn(bridge, phone.token, { since_id: formatEventId(0), epoch: "epoch-1" });
    expect(app.joined.response).toMatchObject({ replay: "complete", replayed: 3, last_event_id: formatEventId(5) });
    await until(() => app.received.length === 3, "the replay");
    expect(app.received).toEqual([formatEventId(1), formatEventId(3), formatEventId(5)]);
  });

  it("S9: a relayed call reaches the server and its answer comes back; with the server away it is server_unavailable", async () => {
    const bridge = await rig();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    server.channel.on("api_request", (request: { request_id: string; device_id: string }) => {
      server.channel.push("api_result", {
        request_id: request.request_id,
        status: 200,
        body: { device: request.device_id },
      });
    });
    const app = await appOn(bridge, phone.token);
    expect(await pushOnce(app.channel, "api", { method: "GET", path: "/sessions" })).toEqual({
      status: "ok",
      response: { status: 200, body: { device: "d1" } },
    });
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the server's link ended");
    expect(await pushOnce(app.channel, "api", { method: "GET", path: "/sessions" })).toEqual({
      status: "error",
      response: { reason: "server_unavailable" },
    });
  });
});
