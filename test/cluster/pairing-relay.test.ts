// Pairing, the API relay and revocation across nodes (docs/bridge.md "Cluster", B105–B110): the server is linked on
// node A, the app talks to node B. A real server (SQLite in a temp dir, its forwarder relaying calls), a real
// redis-server, the client library's pair() and official phoenix sockets.
import { describe, expect, it } from "vitest";
import { pair } from "../../client/connection/pair.ts";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import {
  cleanups,
  device,
  fakeServer,
  joinOnce,
  phoenixSocket,
  pushOnce,
  until,
  type TestBridge,
} from "../bridge/helpers.ts";
import { NodeWebSocket } from "../client/support/stack.ts";
import { forwardTo } from "../relay/stack.ts";
import { startTestServer } from "../support/server.ts";
import { appOn, clusterNodes, figuresOf, useRedis, untilGranted } from "./support.ts";

const redisOf = useRedis();

/** A real server whose forwarder joins node `a` and runs the calls apps relay. */
async function serverOn(a: TestBridge) {
  const server = await startTestServer({ server: { server_id: "srv1", public_url: "http://127.0.0.1:1" } });
  cleanups.push(() => server.close(true));
  await forwardTo(server, a, "the server joined node A");
  return server;
}

async function codeOn(server: Awaited<ReturnType<typeof startTestServer>>, node: TestBridge): Promise<string> {
  const created = await server.request({ method: "POST", url: "/pairing", payload: {} });
  const code = (created.json as { code: string }).code;
  await until(
    () => node.core.registry.findCode(hashPairingCode(code)) !== undefined,
    "the code reached the app's node",
  );
  return code;
}

describe("pairing and relayed calls through another node", () => {
  it("B105: pairs through node B with the server linked on node A, and the token works on B", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await serverOn(a!);
    const code = await codeOn(server, b!);
    const credentials = await pair({ bridgeUrl: b!.url, code, deviceName: "phone", WebSocket: NodeWebSocket });
    expect(credentials.server_id).toBe("srv1");
    await untilGranted(b!, sha256Hex(credentials.device_token));
    const app = await appOn(b!.url, credentials.device_token);
    expect(app.joined.status).toBe("ok");
    // The code was single use on every node.
    const again = await joinOnce(phoenixSocket(a!.url).channel("pairing", { code, device_name: "twin" }));
    expect(again).toEqual({ status: "error", response: { reason: "invalid_code" } });
  });

  it("B106: relays an app's API call on node B to the server on node A and answers it", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await serverOn(a!);
    const code = await codeOn(server, b!);
    const credentials = await pair({ bridgeUrl: b!.url, code, deviceName: "phone", WebSocket: NodeWebSocket });
    await untilGranted(b!, sha256Hex(credentials.device_token));
    const app = await appOn(b!.url, credentials.device_token);
    const created = await pushOnce(app.channel, "api", { method: "POST", path: "/sessions", body: {} });
    expect(created.status).toBe("ok");
    expect(created.response).toMatchObject({ status: 201 });
    const listed = await pushOnce(app.channel, "api", { method: "GET", path: "/sessions" });
    expect(listed.response).toMatchObject({ status: 200 });
    expect((listed.response.body as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  it("B107: a code taken on one node is gone on every node: of two attempts at once, one reaches the server", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const code = "AAAAABBBBB";
    const server = await fakeServer(a!.url, {
      codes: [{ code_hash: sha256Hex(code), expires_at: a!.clock.now() + 600_000 }],
    });
    await until(() => b!.core.registry.findCode(sha256Hex(code)) !== undefined, "the code reached node B");
    const replies = [a!, b!].map((node) =>
      joinOnce(phoenixSocket(node.url).channel("pairing", { code, device_name: "phone" })),
    );
    await until(() => server.pairRequests.length === 1, "one pair_request forwarded");
    const refused = await Promise.race(replies);
    expect(refused).toEqual({ status: "error", response: { reason: "invalid_code" } });
    expect(server.pairRequests).toHaveLength(1);
  });
});

describe("revocation and limits across nodes", () => {
  it("B108: withdrawing a grant on node A closes the device's sockets on every node at once (pushed, not polled)", async () => {
    // A heartbeat of a minute: only the control channel can carry the revocation in time.
    const [a, b, c] = await clusterNodes(redisOf(), 3, { cluster: { heartbeatMs: 60_000, linkTtlMs: 180_000 } });
    const phone = device("dev_phone");
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    await until(
      () => [b!, c!].every((node) => node.core.registry.deviceOf("srv1", phone.grant.token_hash) !== undefined),
      "the grant reached every node",
    );
    const apps = await Promise.all([a!, b!, c!].map((node) => appOn(node.url, phone.token)));
    expect(apps.map((app) => app.joined.status)).toEqual(["ok", "ok", "ok"]);
    expect((await pushOnce(server.channel, "grants", { devices: [], codes: [] })).status).toBe("ok");
    await until(
      () => apps.every((app) => app.closes.includes(BRIDGE_CLOSE.deviceRevoked)),
      "every node closed the device's socket with 4001",
    );
    expect(b!.core.registry.deviceOf("srv1", phone.grant.token_hash)).toBeUndefined();
  });

  it("B109: counts failed pairing attempts and new registrations cluster-wide", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2, { pairingFailuresPerAddress: 3, serverRegistrationsPerAddress: 1 });
    const attempt = (node: TestBridge) =>
      joinOnce(phoenixSocket(node.url).channel("pairing", { code: "ZZZZZZZZZZ", device_name: "x" }));
    expect((await attempt(a!)).response).toEqual({ reason: "invalid_code" });
    expect((await attempt(a!)).response).toEqual({ reason: "invalid_code" });
    expect((await attempt(b!)).response).toEqual({ reason: "invalid_code" });
    await until(() => b!.core.metrics.pairingFailures === 1, "B counted its failure");
    expect((await attempt(b!)).response).toEqual({ reason: "rate_limited" });
    expect((await attempt(a!)).response).toEqual({ reason: "rate_limited" });

    expect((await fakeServer(a!.url, { serverId: "one" })).joined.status).toBe("ok");
    expect((await fakeServer(b!.url, { serverId: "two" })).joined).toEqual({
      status: "error",
      response: { reason: "rate_limited" },
    });
  });

  it("B110: tells the server which devices are connected on any node (devices_seen), through the node holding its link", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const phone = device("dev_phone");
    const tablet = device("dev_tablet");
    const server = await fakeServer(a!.url, { devices: [phone.grant, tablet.grant] });
    const seen: Array<{ device_ids: string[]; connected: string[] }> = [];
    server.channel.on(
      "devices_seen",
      (payload: { device_ids: string[]; connected: string[] }) => void seen.push(payload),
    );
    await untilGranted(b!, phone.grant.token_hash);
    await until(() => figuresOf(b!).nodes === 2 && figuresOf(a!).nodes === 2, "both nodes alive in the figures");
    await appOn(b!.url, phone.token);
    b!.sightings.flush();
    await until(() => seen.length === 1, "devices_seen from node B reached the server on A");
    expect(seen[0]).toEqual({ device_ids: ["dev_phone"], connected: ["dev_phone"] });
    await appOn(a!.url, tablet.token);
    a!.sightings.flush();
    await until(() => seen.length === 2, "devices_seen from node A");
    expect(seen[1]!.device_ids).toEqual(["dev_tablet"]);
    expect(seen[1]!.connected.sort()).toEqual(["dev_phone", "dev_tablet"]);
  });
});
