// Grants are isolated between servers (docs/bridge.md "Grants", B34): a device token hash belongs to the server that
// first granted it. Another registered server that lists it (in its join or a `grants` push) is ignored for that
// device and logged, so it can neither lock the device out of its own topic nor get its sockets closed with 4001.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { device, fakeServer, joinOnce, phoenixSocket, pushOnce, runCleanups, testBridge, testEvent, until } from "./helpers.ts";

afterEach(runCleanups);

const OTHER_CREDENTIAL = "other-server-".padEnd(48, "o");

describe("grants between servers", () => {
  it("keeps a device token hash with the server that first granted it (B34)", async () => {
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

    // Another registered server claims the phone's token hash, at its join and in a grants push...
    const intruder = await fakeServer(bridge.url, { serverId: "srv2", credential: OTHER_CREDENTIAL, devices: [{ device_id: "stolen", token_hash: phone.grant.token_hash }] });
    expect(intruder.joined.status).toBe("ok");
    expect(await pushOnce(intruder.channel, "grants", { devices: [{ device_id: "stolen", token_hash: phone.grant.token_hash }], codes: [] })).toEqual({ status: "ok", response: {} });
    expect(bridge.core.registry.device(phone.grant.token_hash)).toEqual({ serverId: "srv1", deviceId: "d1", mode: "plain" });
    // ...so the phone still joins its own topic and not the intruder's,
    const again = phoenixSocket(bridge.url, { params: { token: phone.token } });
    expect((await joinOnce(again.channel("events:server:srv1"))).status).toBe("ok");
    expect(await joinOnce(again.channel("events:server:srv2"))).toEqual({ status: "error", response: { reason: "unauthorized" } });

    // ...and withdrawing the claim closes nothing.
    expect(await pushOnce(intruder.channel, "grants", { devices: [], codes: [] })).toEqual({ status: "ok", response: {} });
    expect(bridge.core.metrics.revokedCloses).toBe(0);
    expect((await pushOnce(owner.channel, "session_event", { event: testEvent(1) })).status).toBe("ok");
    await until(() => received.length === 1, "the phone still gets its server's events");
    expect(closes).not.toContain(BRIDGE_CLOSE.deviceRevoked);
    expect(bridge.log.records.filter((record) => record.msg === "grant refused: token hash belongs to another server").map((record) => record.fields)).toEqual([
      { server_id: "srv2", device_id: "stolen", owner: "srv1" },
      { server_id: "srv2", device_id: "stolen", owner: "srv1" },
    ]);

    // The durable state agrees, and the owner's own revocation still works.
    const saved = JSON.parse(readFileSync(join(bridge.dataDir, "servers.json"), "utf8")) as { servers: Record<string, { devices: unknown[] }> };
    expect([saved.servers.srv1!.devices, saved.servers.srv2!.devices]).toEqual([[phone.grant], []]);
    expect(await pushOnce(owner.channel, "grants", { devices: [], codes: [] })).toEqual({ status: "ok", response: {} });
    await until(() => closes.includes(BRIDGE_CLOSE.deviceRevoked), "the owner's revocation closes the phone with 4001");
  });

  it("lets a hash its owner withdrew be granted by another server", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    const first = await fakeServer(bridge.url, { serverId: "srv1", devices: [phone.grant] });
    const second = await fakeServer(bridge.url, { serverId: "srv2", credential: OTHER_CREDENTIAL });
    await pushOnce(first.channel, "grants", { devices: [], codes: [] });
    await pushOnce(second.channel, "grants", { devices: [phone.grant], codes: [] });
    expect(bridge.core.registry.device(phone.grant.token_hash)).toEqual({ serverId: "srv2", deviceId: "d1", mode: "plain" });
  });
});
