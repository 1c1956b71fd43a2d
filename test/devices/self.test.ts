// A device acting on itself (docs/sessions.md "This device", DS1-DS3): PATCH /devices/self renames it, DELETE
// /devices/self revokes it on the server and on the bridge (its socket closes with 4001, it can join no more), over a
// listening server linked to a real bridge, with the official phoenix client as the app.
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { joinOnce, phoenixSocket, runCleanups, testBridge, until, type TestBridge } from "../bridge/helpers.ts";
import { serverPeer, type ServerPeer } from "../bridge/server-peer.ts";
import { ADMIN_TOKEN } from "../support/server.ts";

afterEach(runCleanups);

async function stack(): Promise<{ bridge: TestBridge; peer: ServerPeer; base: string }> {
  const bridge = await testBridge();
  const peer = await serverPeer(bridge.url);
  const base = `http://127.0.0.1:${(peer.server.runtime.app.server.address() as AddressInfo).port}`;
  return { bridge, peer, base };
}

async function pair(bridge: TestBridge, peer: ServerPeer, name: string): Promise<{ deviceId: string; token: string }> {
  const { code } = peer.server.runtime.ctx.pairing.createCode();
  await until(
    () => bridge.core.registry.findCode(hashPairingCode(code)) !== undefined,
    "code registered on the bridge",
  );
  const socket = phoenixSocket(bridge.url);
  const reply = await joinOnce(socket.channel("pairing", { code, device_name: name }));
  socket.disconnect();
  expect(reply.status).toBe("ok");
  return { deviceId: reply.response.device_id as string, token: reply.response.device_token as string };
}

async function call(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

describe("/devices/self", () => {
  it("DS1: PATCH renames the calling device only; bad names are 400 with the path", async () => {
    const { bridge, peer, base } = await stack();
    const phone = await pair(bridge, peer, "phone");
    const laptop = await pair(bridge, peer, "laptop");
    const renamed = await call(base, "PATCH", "/devices/self", phone.token, { name: "  Anna's phone  " });
    expect(renamed.status).toBe(200);
    expect(renamed.json.device).toMatchObject({ device_id: phone.deviceId, name: "Anna's phone", revoked_at: null });
    const own = await call(base, "GET", "/devices/self", phone.token);
    expect([own.status, own.json.device.device_id, own.json.device.name]).toEqual([
      200,
      phone.deviceId,
      "Anna's phone",
    ]);
    expect((await call(base, "GET", "/devices/self", ADMIN_TOKEN)).status).toBe(403);
    const devices = (await call(base, "GET", "/devices", ADMIN_TOKEN)).json.devices as Array<{
      device_id: string;
      name: string;
    }>;
    expect(devices.map((d) => [d.device_id, d.name])).toEqual([
      [phone.deviceId, "Anna's phone"],
      [laptop.deviceId, "laptop"],
    ]);
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: "x".repeat(101) },
      { name: 5 },
      { name: "ok", extra: 1 },
    ]) {
      const refused = await call(base, "PATCH", "/devices/self", phone.token, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.code).toBe("invalid_input");
      expect(refused.json.error.details[0].path).toMatch(/^body/);
    }
    const admin = await call(base, "PATCH", "/devices/self", ADMIN_TOKEN, { name: "x" });
    expect([admin.status, admin.json.error.code]).toEqual([403, "device_token_required"]);
    expect((await call(base, "PATCH", "/devices/self", "wrong-token", { name: "x" })).status).toBe(401);
  });

  it("DS2: DELETE revokes the calling device on the server and on the bridge, as the admin's DELETE /devices/{id} does", async () => {
    const { bridge, peer, base } = await stack();
    const phone = await pair(bridge, peer, "phone");
    const other = await pair(bridge, peer, "other");
    const app = phoenixSocket(bridge.url, { params: { token: phone.token } });
    const closes: number[] = [];
    app.onClose((event: { code: number }) => void closes.push(event.code));
    expect((await joinOnce(app.channel("events:server:srv1"))).status).toBe("ok");

    const revoked = await call(base, "DELETE", "/devices/self", phone.token);
    expect(revoked.status).toBe(200);
    expect(revoked.json.device).toMatchObject({ device_id: phone.deviceId, revoked_at: expect.any(String) });
    await until(() => closes.includes(BRIDGE_CLOSE.deviceRevoked), "the device's socket closed with 4001");
    app.disconnect();
    const again = phoenixSocket(bridge.url, { params: { token: phone.token } });
    expect(await joinOnce(again.channel("events:server:srv1"))).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    again.disconnect();
    expect((await call(base, "GET", "/sessions", phone.token)).status).toBe(401);
    expect((await call(base, "DELETE", "/devices/self", phone.token)).status).toBe(401);
    // The other device is untouched.
    expect((await call(base, "GET", "/sessions", other.token)).status).toBe(200);
  });

  it("DS3: the admin token names no device: DELETE /devices/self is 403 and revokes nothing; a body is refused", async () => {
    const { bridge, peer, base } = await stack();
    const phone = await pair(bridge, peer, "phone");
    const admin = await call(base, "DELETE", "/devices/self", ADMIN_TOKEN);
    expect([admin.status, admin.json.error.code]).toEqual([403, "device_token_required"]);
    const withBody = await call(base, "DELETE", "/devices/self", phone.token, { device_id: "someone-else" });
    expect([withBody.status, withBody.json.error.details[0].path]).toEqual([400, "body"]);
    expect((await call(base, "GET", "/sessions", phone.token)).status).toBe(200);
    // The admin's own route still treats "self" as no device id of its own.
    expect(
      (await call(base, "GET", "/devices", ADMIN_TOKEN)).json.devices.every(
        (d: { revoked_at: unknown }) => d.revoked_at === null,
      ),
    ).toBe(true);
  });
});
