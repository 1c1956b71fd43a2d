// A relayed call's caller (server/auth/caller.ts): the bridge's relay hands the in-process request its device as a
// relay pass on the request object, and the authenticator believes it only with this process's relay secret. No
// header names a relayed device: the old `Relay <secret> <device>` value over HTTP is an unknown token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../../server/http/in-process-request.ts";
import { runRelayedCall } from "../../server/forwarder/api-relay.ts";
import { pairedDevice, startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let device: { device_id: string; device_token: string };

beforeAll(async () => {
  server = await startTestServer();
  device = pairedDevice(server);
});
afterAll(() => server.runtime.close());

const asRelayed = (secret: string, deviceId: string) =>
  runInProcess(server.runtime.app, {
    method: "GET",
    url: "/devices/self",
    headers: {},
    relayed: { secret, device_id: deviceId },
  });

describe("a relayed call's caller (issue 29, item 3)", () => {
  it("runs as the device the relay pass names when the pass holds this process's secret", async () => {
    const { secret } = server.runtime.ctx.auth.relayPass(device.device_id);
    const answer = await asRelayed(secret, device.device_id);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body.toString()).device.device_id).toBe(device.device_id);
  });

  it("refuses a pass whose secret is not this process's, however close", async () => {
    const { secret } = server.runtime.ctx.auth.relayPass(device.device_id);
    const flipped = (secret[0] === "0" ? "1" : "0") + secret.slice(1);
    for (const forged of [flipped, "0".repeat(64), secret + "0", secret.slice(0, 62), "", `${secret}zz`]) {
      const answer = await asRelayed(forged, device.device_id);
      expect(answer.statusCode, forged).toBe(401);
      expect(JSON.parse(answer.body.toString()).error.code).toBe("unauthorized");
    }
  });

  it("reads no relayed device from a header, through inject or in-process", async () => {
    const { secret } = server.runtime.ctx.auth.relayPass(device.device_id);
    const header = `Relay ${secret} ${device.device_id}`;
    const injected = await server.request({ method: "GET", url: "/devices/self", headers: { authorization: header } });
    expect(injected.status).toBe(401);
    const inProcess = await runInProcess(server.runtime.app, {
      method: "GET",
      url: "/devices/self",
      headers: { authorization: header },
    });
    expect(inProcess.statusCode).toBe(401);
  });

  it("answers a relayed call as the device: its own routes, and 403 on the admin's", async () => {
    const { ctx, app } = server.runtime;
    const relayedGet = (request_id: string, path: string) =>
      runRelayedCall(ctx, app, { request_id, device_id: device.device_id, method: "GET", path });
    expect(await relayedGet("r1", "/devices/self")).toMatchObject({ request_id: "r1", status: 200 });
    // Producer tokens are the admin token's alone (GET /devices is every person's own since people: docs/people.md).
    const admin = await relayedGet("r2", "/producers");
    expect(admin).toMatchObject({ request_id: "r2", status: 403 });
  });
});
