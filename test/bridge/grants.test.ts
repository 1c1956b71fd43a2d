// Grants are scoped to the server that granted them (docs/bridge.md "Grants", B140-B142): a device is looked up per
// (server, token hash) when it joins `events:server:<id>`, so another registered server listing the same hash (in
// its join or a `grants` push, before or after the owner) can neither lock the device out of its own topic nor get
// its sockets closed with 4001, nor keep a device its owner revoked attached. Real bridge, official phoenix client.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
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
  type TestBridge,
} from "./helpers.ts";

afterEach(runCleanups);

const OTHER_CREDENTIAL = "other-server-".padEnd(48, "o");

/** The phone's socket on its server's topic, with what it hears and how it is closed. */
async function phoneOn(bridge: TestBridge, token: string) {
  const socket = phoenixSocket(bridge.url, { params: { token } });
  const closes: number[] = [];
  socket.onClose((event: { code: number }) => void closes.push(event.code));
  const feed = socket.channel("events:server:srv1");
  const received: string[] = [];
  feed.on("session_event", (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id));
  return { socket, closes, received, joined: await joinOnce(feed) };
}

describe("grants between servers", () => {
  it("an intruder that grants a device's hash FIRST cannot lock the device out of its own server's topic (B140)", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    // The intruder registers and claims the phone's token hash before the phone's own server ever grants it...
    const intruder = await fakeServer(bridge.url, {
      serverId: "srv2",
      credential: OTHER_CREDENTIAL,
      devices: [{ device_id: "stolen", token_hash: phone.grant.token_hash }],
    });
    expect(intruder.joined.status).toBe("ok");
    const owner = await fakeServer(bridge.url, { serverId: "srv1", devices: [phone.grant] });
    expect(owner.joined.status).toBe("ok");

    // ...and the phone joins its own server's topic all the same, and hears its events.
    const app = await phoneOn(bridge, phone.token);
    expect(app.joined.status).toBe("ok");
    expect(bridge.core.registry.deviceOf("srv1", phone.grant.token_hash)).toBe("d1");
    expect((await pushOnce(owner.channel, "session_event", { event: testEvent(1) })).status).toBe("ok");
    await until(() => app.received.length === 1, "the phone gets its server's event");

    // Withdrawing the claim closes nothing of the owner's device.
    expect(await pushOnce(intruder.channel, "grants", { devices: [], codes: [] })).toEqual({
      status: "ok",
      response: {},
    });
    expect((await pushOnce(owner.channel, "session_event", { event: testEvent(2) })).status).toBe("ok");
    await until(() => app.received.length === 2, "the phone still gets its server's events");
    expect(bridge.core.metrics.revokedCloses).toBe(0);
    expect(app.closes).not.toContain(BRIDGE_CLOSE.deviceRevoked);
  });

  it("an intruder still claiming the hash cannot keep a device its owner revoked attached (B141)", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    const owner = await fakeServer(bridge.url, { serverId: "srv1", devices: [phone.grant] });
    const intruder = await fakeServer(bridge.url, {
      serverId: "srv2",
      credential: OTHER_CREDENTIAL,
      devices: [{ device_id: "stolen", token_hash: phone.grant.token_hash }],
    });
    expect(intruder.joined.status).toBe("ok");
    const app = await phoneOn(bridge, phone.token);
    expect(app.joined.status).toBe("ok");

    // The owner revokes the phone: its socket on the owner's topic closes with 4001 and it cannot join again.
    expect(await pushOnce(owner.channel, "grants", { devices: [], codes: [] })).toEqual({ status: "ok", response: {} });
    await until(
      () => app.closes.includes(BRIDGE_CLOSE.deviceRevoked),
      "the owner's revocation closes the phone with 4001",
    );
    const again = phoenixSocket(bridge.url, { params: { token: phone.token } });
    expect(await joinOnce(again.channel("events:server:srv1"))).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    expect(bridge.log.has("events join with another server's token")).toBe(true);
  });

  it("an intruder claiming the hash AFTER the owner changes nothing for the device; each server's list is its own (B142)", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    const owner = await fakeServer(bridge.url, { serverId: "srv1", devices: [phone.grant] });
    const app = phoenixSocket(bridge.url, { params: { token: phone.token } });
    const closes: number[] = [];
    app.onClose((event: { code: number }) => void closes.push(event.code));
    const feed = app.channel("events:server:srv1");
    const received: string[] = [];
    feed.on("session_event", (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id));
    expect((await joinOnce(feed)).status).toBe("ok");

    const stolen = { device_id: "stolen", token_hash: phone.grant.token_hash };
    const intruder = await fakeServer(bridge.url, {
      serverId: "srv2",
      credential: OTHER_CREDENTIAL,
      devices: [stolen],
    });
    expect(intruder.joined.status).toBe("ok");
    expect(await pushOnce(intruder.channel, "grants", { devices: [stolen], codes: [] })).toEqual({
      status: "ok",
      response: {},
    });
    expect(bridge.core.registry.deviceOf("srv1", phone.grant.token_hash)).toBe("d1");
    const again = phoenixSocket(bridge.url, { params: { token: phone.token } });
    expect((await joinOnce(again.channel("events:server:srv1"))).status).toBe("ok");

    expect(await pushOnce(intruder.channel, "grants", { devices: [], codes: [] })).toEqual({
      status: "ok",
      response: {},
    });
    expect(bridge.core.metrics.revokedCloses).toBe(0);
    expect((await pushOnce(owner.channel, "session_event", { event: testEvent(1) })).status).toBe("ok");
    await until(() => received.length === 1, "the phone still gets its server's events");
    expect(closes).not.toContain(BRIDGE_CLOSE.deviceRevoked);
    // A hash two servers list is logged (a token hash is a secret's: a second lister copied it).
    expect(
      bridge.log.records
        .filter((record) => record.msg === "grant lists a token hash another server grants too")
        .map((record) => record.fields),
    ).toEqual([
      { server_id: "srv2", device_id: "stolen", owner: "srv1" },
      { server_id: "srv2", device_id: "stolen", owner: "srv1" },
    ]);

    // The durable state keeps each server's own list.
    const saved = JSON.parse(readFileSync(join(bridge.dataDir, "servers.json"), "utf8")) as {
      servers: Record<string, { devices: unknown[] }>;
    };
    // A server that speaks no audiences has its devices in its sole one (bridge/channels/server-audience.ts).
    expect([saved.servers.srv1!.devices, saved.servers.srv2!.devices]).toEqual([
      [{ ...phone.grant, audience: "*" }],
      [],
    ]);
  });
});
