// Server registrations (docs/bridge.md "The server credential", B31, B32): trust on first use is bounded by a cap on
// registered server ids and a per-address rate of new ones. Refusals are logged and counted; known servers are never
// affected.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { DEFAULT_REPLAY_BYTES, loadBridgeConfig } from "../../bridge/config.ts";
import {
  CREDENTIAL,
  fakeServer,
  joinOnce,
  phoenixSocket,
  runCleanups,
  testBridge,
  until,
  type TestBridge,
} from "./helpers.ts";

afterEach(runCleanups);

const registeredIds = (bridge: TestBridge) =>
  Object.keys(
    (JSON.parse(readFileSync(join(bridge.dataDir, "servers.json"), "utf8")) as { servers: object }).servers,
  ).sort();

async function metric(bridge: TestBridge, name: string): Promise<number> {
  const text = await (await fetch(`${bridge.httpUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1]);
}

function refusals(bridge: TestBridge) {
  return bridge.log.records
    .filter((record) => record.msg === "server registration refused")
    .map((record) => [record.fields.server_id, record.fields.reason]);
}

/** Disconnects a fake server and waits until the bridge has seen its channel end. */
async function leave(bridge: TestBridge, server: Awaited<ReturnType<typeof fakeServer>>) {
  server.socket.disconnect();
  await until(() => bridge.core.registry.get(server.serverId)?.link === undefined, `${server.serverId} gone`);
}

describe("server registrations", () => {
  it("refuses a new server id past the cap with registration_closed; registered servers still join (B31)", async () => {
    const bridge = await testBridge({ maxServers: 3, serverRegistrationsPerAddress: 100 });
    const first = await fakeServer(bridge.url, { serverId: "srv1" });
    expect(first.joined.status).toBe("ok");
    for (const serverId of ["srv2", "srv3"])
      expect((await fakeServer(bridge.url, { serverId })).joined.status).toBe("ok");

    const late = await fakeServer(bridge.url, { serverId: "srv4" });
    expect(late.joined).toEqual({ status: "error", response: { reason: "registration_closed" } });
    expect(bridge.core.registry.has("srv4")).toBe(false);
    expect(registeredIds(bridge)).toEqual(["srv1", "srv2", "srv3"]);
    expect(refusals(bridge)).toEqual([["srv4", "registration_closed"]]);
    expect(await metric(bridge, "bridge_server_registrations_refused_total")).toBe(1);

    // A registered server comes back as before, and its credential is still checked (not registration_closed).
    await leave(bridge, first);
    expect((await fakeServer(bridge.url, { serverId: "srv1", credential: "guess-".padEnd(40, "g") })).joined).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    expect((await fakeServer(bridge.url, { serverId: "srv1" })).joined.status).toBe("ok");
    expect(await metric(bridge, "bridge_server_registrations_refused_total")).toBe(1);

    // The cap counts the servers loaded from servers.json after a restart.
    await bridge.close();
    const reborn = await testBridge({ maxServers: 3 }, bridge.dataDir);
    expect((await fakeServer(reborn.url, { serverId: "srv5" })).joined).toEqual({
      status: "error",
      response: { reason: "registration_closed" },
    });
    expect((await fakeServer(reborn.url, { serverId: "srv2" })).joined.status).toBe("ok");
  });

  it("rate-limits new registrations per address; one socket cannot register ids by the thousand (B32)", async () => {
    const bridge = await testBridge();
    const { serverRegistrationsPerAddress, serverRegistrationWindowMs } = bridge.core.config;
    expect(serverRegistrationsPerAddress).toBe(5);
    // One unauthenticated socket joins server:<random id> over and over, as the attack did.
    const attacker = phoenixSocket(bridge.url);
    const replies = [];
    for (let i = 0; i < 20; i++)
      replies.push(
        await joinOnce(
          attacker.channel(`server:rnd${i}`, {
            credential: CREDENTIAL,
            epoch: "e",
            cursor: formatEventId(0),
            devices: [],
            codes: [],
          }),
        ),
      );
    expect(replies.filter((reply) => reply.status === "ok")).toHaveLength(5);
    expect(replies.slice(5)).toEqual(Array(15).fill({ status: "error", response: { reason: "rate_limited" } }));
    expect(registeredIds(bridge)).toHaveLength(5);
    expect(bridge.core.registry.registeredServers).toBe(5);
    expect(refusals(bridge)).toHaveLength(15);
    expect(refusals(bridge)[0]).toEqual(["rnd5", "rate_limited"]);
    expect(await metric(bridge, "bridge_server_registrations_refused_total")).toBe(15);

    // Known ids are not registrations: a registered server rejoins whatever the rate.
    attacker.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the attacker's channels ended");
    expect(
      (
        await joinOnce(
          phoenixSocket(bridge.url).channel("server:rnd0", {
            credential: CREDENTIAL,
            epoch: "e",
            cursor: formatEventId(0),
            devices: [],
            codes: [],
          }),
        )
      ).status,
    ).toBe("ok");

    // The next window allows new ones again.
    bridge.clock.advance(serverRegistrationWindowMs);
    expect((await fakeServer(bridge.url, { serverId: "fresh" })).joined.status).toBe("ok");
  });

  it("reads BRIDGE_MAX_SERVERS and BRIDGE_REPLAY_BYTES, with defaults", () => {
    expect(loadBridgeConfig({})).toMatchObject({
      maxServers: 100,
      replayBytes: DEFAULT_REPLAY_BYTES,
      serverRegistrationsPerAddress: 5,
      serverRegistrationWindowMs: 3_600_000,
    });
    expect(DEFAULT_REPLAY_BYTES).toBe(16 * 1024 * 1024);
    expect(loadBridgeConfig({ BRIDGE_MAX_SERVERS: "7", BRIDGE_REPLAY_BYTES: "4096" })).toMatchObject({
      maxServers: 7,
      replayBytes: 4096,
    });
    expect(() => loadBridgeConfig({ BRIDGE_MAX_SERVERS: "0" })).toThrow(/^BRIDGE_MAX_SERVERS: /);
    expect(() => loadBridgeConfig({ BRIDGE_REPLAY_BYTES: "lots" })).toThrow(/^BRIDGE_REPLAY_BYTES: /);
  });
});
