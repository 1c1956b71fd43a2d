// docs/bridge.md "Relay" B80-B88: an app's `api` push over the official phoenix client reaches the server's HTTP
// API as its own device, and every hostile call (forged device id, admin routes, oversize bodies, floods, malformed
// methods and paths, a server that is away or silent, a pairing-only socket, a revocation in flight) is refused with
// its documented reason and logged, while other apps keep being served.
import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import {
  phoenixSocket,
  pushOnce,
  runCleanups,
  joinOnce,
  fakeServer,
  device,
  testBridge,
  until,
} from "../bridge/helpers.ts";
import { byRef, payloadOf, rawClient } from "../bridge/raw-client.ts";
import { appChannel, pairDevice, pairedRelay, relay, relayStack } from "./stack.ts";

afterEach(runCleanups);

describe("the API relay", () => {
  it("runs the route as the device the bridge authenticated, with the route's own status and body (B80)", async () => {
    const { stack, credentials, channel } = await pairedRelay();
    const created = await relay(channel, "POST", "/sessions", {});
    expect(created.status).toBe("ok");
    expect(created.response).toMatchObject({ status: 201, body: { session: { id: expect.any(String) } } });
    const listed = await relay(channel, "GET", "/sessions");
    expect(listed.response).toMatchObject({
      status: 200,
      body: {
        sessions: [expect.objectContaining({ id: (created.response.body as { session: { id: string } }).session.id })],
      },
    });
    const missing = await relay(channel, "GET", "/sessions/nope?x=1");
    expect(missing.response).toMatchObject({ status: 404, body: { error: { code: expect.any(String) } } });
    // The device was seen through its relayed calls (the auth hook ran as that device).
    const devices = await stack.server.request({ method: "GET", url: "/devices" });
    expect(devices.json.devices[0]).toMatchObject({
      device_id: credentials.device_id,
      last_seen_at: expect.any(String),
    });
  });

  it("refuses admin routes with the body HTTP gives a member's device token, and a forged device id (B81)", async () => {
    const stack = await relayStack();
    const member = await stack.server.request({ method: "POST", url: "/people", payload: { name: "Ana" } });
    const credentials = await pairDevice(stack, stack.serverUrl, "phone", member.json.person.id);
    const owner = await pairDevice(stack, stack.serverUrl, "owner phone");
    const ownerId = (await stack.server.request({ method: "GET", url: "/people/me" })).json.person.id as string;
    const { channel } = await appChannel(stack, credentials.device_token);
    for (const [method, path, body, status] of [
      ["POST", "/pairing", { person_id: ownerId }, 403],
      ["GET", "/people", undefined, 403],
      ["DELETE", `/devices/${owner.device_id}`, undefined, 404],
    ] as const) {
      const overHttp = await stack.server.request({
        method,
        url: path,
        token: credentials.device_token,
        ...(body ? { payload: body } : {}),
      });
      const relayed = await relay(channel, method, path, body);
      expect(relayed.response).toEqual({ status: overHttp.status, body: overHttp.json });
      expect(overHttp.status).toBe(status);
    }
    const forged = await pushOnce(channel, "api", { method: "GET", path: "/devices", device_id: "admin" });
    expect(forged).toEqual({ status: "error", response: { reason: "invalid_request" } });
    expect(
      stack.bridge.log.records.some((r) => r.msg === "relay call malformed" && r.fields.reason === "invalid_request"),
    ).toBe(true);
    // Still a device, still served.
    expect((await stack.server.request({ method: "GET", url: "/devices" })).json.devices[0].revoked_at).toBeNull();
    expect((await relay(channel, "GET", "/sessions")).response).toMatchObject({ status: 200 });
  });

  it("refuses malformed methods and paths as invalid_request, logged, and goes on serving (B82)", async () => {
    const { stack, channel } = await pairedRelay();
    const hostile: Array<[string, unknown]> = [
      ["PUT", "/sessions"],
      ["get", "/sessions"],
      ["GET", "sessions"],
      ["GET", "../devices"],
      ["GET", "/sessions/../devices"],
      ["GET", "/sessions/%2e%2e/devices"],
      ["GET", "/sessions/%2F..%2Fdevices"],
      ["GET", "http://127.0.0.1:1/sessions"],
      ["GET", "//127.0.0.1:1/sessions"],
      ["GET", "/sessions\r\nAuthorization: Bearer x"],
      ["GET", "/sessions\n"],
      ["GET", "/sessions\u0000"],
      ["GET", "/sessions%00"],
      ["GET", "/events?since_id=0&wait_ms=1000"],
      ["GET", `/${"a".repeat(3000)}`],
      ["GET", 42],
    ];
    for (const [method, path] of hostile) {
      const reply = await pushOnce(channel, "api", { method, path });
      expect(reply, `${String(method)} ${JSON.stringify(path)}`).toEqual({
        status: "error",
        response: { reason: "invalid_request" },
      });
    }
    expect(stack.bridge.log.records.filter((r) => r.fields.reason === "invalid_request").length).toBeGreaterThan(0);
    expect((await relay(channel, "GET", "/sessions")).response).toMatchObject({ status: 200 });
  });

  it("answers too_large for a request body or a response past one frame (B83)", async () => {
    const { stack, channel } = await pairedRelay();
    const session = (await relay(channel, "POST", "/sessions", {})).response.body as { session: { id: string } };
    const path = `/sessions/${session.session.id}/messages`;
    const big = "x".repeat(1_000_000);
    expect(await relay(channel, "POST", path, { role: "user", content: big })).toEqual({
      status: "error",
      response: { reason: "too_large" },
    });
    // Messages of 450 KB fit one by one; an answer carrying the session with two of them is over a frame (the
    // second append's, which carries the session and the message, and the messages snapshot).
    expect((await relay(channel, "POST", path, { role: "user", content: "y".repeat(450_000) })).response).toMatchObject(
      { status: 201 },
    );
    const second = await relay(channel, "POST", path, { role: "user", content: "z".repeat(450_000) });
    expect([second.status, second.response.reason]).toEqual(["error", "too_large"]);
    expect(
      (
        await stack.server.request({
          method: "POST",
          url: path,
          payload: { role: "user", content: "w".repeat(450_000) },
        })
      ).status,
    ).toBe(201);
    const snapshot = await relay(channel, "GET", path);
    expect([snapshot.status, snapshot.response.reason]).toEqual(["error", "too_large"]);
    // The server's link survived (a too-big answer would have closed its socket with 1009) and others are served.
    expect((await relay(channel, "GET", "/sessions")).response).toMatchObject({ status: 200 });
  });

  it("rate-limits a flood per socket (in flight and per second) while another app is served (B84)", async () => {
    const stack = await relayStack({ relay: { inFlightPerSocket: 4, perSocketPerSecond: 10 } });
    const flooder = await appChannel(stack, (await pairDevice(stack, stack.serverUrl, "flooder")).device_token);
    const other = await appChannel(stack, (await pairDevice(stack, stack.serverUrl, "other")).device_token);
    const flood = await Promise.all(Array.from({ length: 40 }, () => relay(flooder.channel, "GET", "/sessions")));
    const reasons = flood.map((reply) => (reply.status === "ok" ? "ok" : (reply.response.reason as string)));
    expect(reasons.filter((r) => r === "ok")).toHaveLength(4);
    expect(reasons.filter((r) => r === "rate_limited")).toHaveLength(36);
    expect((await relay(other.channel, "GET", "/sessions")).response).toMatchObject({ status: 200 });
    // Per second: 6 more fit this window, then the next window on the bridge's clock admits again.
    const sequential: string[] = [];
    for (let i = 0; i < 8; i++) sequential.push((await relay(flooder.channel, "GET", "/sessions")).status);
    expect(sequential).toEqual(["ok", "ok", "ok", "ok", "ok", "ok", "error", "error"]);
    stack.bridge.clock.advance(1000);
    expect((await relay(flooder.channel, "GET", "/sessions")).status).toBe("ok");
    expect(stack.bridge.log.records.some((r) => r.msg === "relay call rate limited")).toBe(true);
  });

  it("rate-limits per server across its devices (B84)", async () => {
    const stack = await relayStack({ relay: { inFlightPerServer: 3 } });
    const a = await appChannel(stack, (await pairDevice(stack, stack.serverUrl, "a")).device_token);
    const b = await appChannel(stack, (await pairDevice(stack, stack.serverUrl, "b")).device_token);
    const replies = await Promise.all([a, b, a, b, a, b].map((app) => relay(app.channel, "GET", "/sessions")));
    expect(replies.filter((r) => r.status === "ok")).toHaveLength(3);
    expect(replies.filter((r) => r.response.reason === "rate_limited")).toHaveLength(3);
  });

  it("answers server_unavailable for a server that is away (B85)", async () => {
    const { stack, channel } = await pairedRelay();
    await stack.stopForwarder();
    await until(() => stack.bridge.core.registry.get("srv1")?.link === undefined, "server left");
    expect(await relay(channel, "GET", "/sessions")).toEqual({
      status: "error",
      response: { reason: "server_unavailable" },
    });
    expect(stack.bridge.log.records.some((r) => r.msg === "relay call to a server that is away")).toBe(true);
  });
});

describe("the API relay against a scripted server peer", () => {
  it("times out a server that never answers, and fails calls in flight when it leaves (B85)", async () => {
    const bridge = await testBridge({ relay: { timeoutMs: 30_000 } });
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const requests: Array<Record<string, unknown>> = [];
    server.channel.on("api_request", (payload: Record<string, unknown>) => void requests.push(payload));
    const socket = phoenixSocket(bridge.url, { authToken: phone.token });
    const channel = socket.channel("events:server:srv1", {});
    expect((await joinOnce(channel)).status).toBe("ok");
    const answer = pushOnce(channel, "api", { method: "GET", path: "/sessions" });
    await until(() => requests.length === 1, "call forwarded");
    bridge.clock.advance(30_000);
    expect(await answer).toEqual({ status: "error", response: { reason: "timeout" } });
    expect(requests[0]).toMatchObject({
      device_id: "d1",
      method: "GET",
      path: "/sessions",
      request_id: expect.any(String),
    });
    // A late answer for a call that timed out goes nowhere; a call in flight when the server leaves is answered.
    expect(
      (await pushOnce(server.channel, "api_result", { request_id: requests[0]!.request_id, status: 200, body: {} }))
        .status,
    ).toBe("ok");
    const second = pushOnce(channel, "api", { method: "GET", path: "/sessions" });
    await until(() => requests.length === 2, "second call forwarded");
    server.socket.disconnect();
    expect(await second).toEqual({ status: "error", response: { reason: "server_unavailable" } });
  });

  it("never answers a device revoked while its call is in flight; its socket is closed with 4001 (B86)", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const requests: Array<Record<string, unknown>> = [];
    server.channel.on("api_request", (payload: Record<string, unknown>) => void requests.push(payload));
    const socket = phoenixSocket(bridge.url, { authToken: phone.token });
    const closes: number[] = [];
    socket.onClose((event: { code: number }) => void closes.push(event.code));
    const channel = socket.channel("events:server:srv1", {});
    expect((await joinOnce(channel)).status).toBe("ok");
    const answers: string[] = [];
    channel
      .push("api", { method: "GET", path: "/sessions" })
      .receive("ok", () => void answers.push("ok"))
      .receive("error", () => void answers.push("error"));
    await until(() => requests.length === 1, "call forwarded");
    expect((await pushOnce(server.channel, "grants", { devices: [], codes: [] })).status).toBe("ok");
    await until(() => closes.includes(4001), "revoked socket closed");
    expect(
      (
        await pushOnce(server.channel, "api_result", {
          request_id: requests[0]!.request_id,
          status: 200,
          body: { sessions: [] },
        })
      ).status,
    ).toBe("ok");
    expect(answers).toEqual([]);
  });

  it("refuses api from a socket joined only to pairing (B87)", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, {
      codes: [{ code_hash: sha256Hex("ABCDE12345"), expires_at: Date.now() + 600_000 }],
    });
    // A raw socket: the phoenix client would hold a push until its channel is joined.
    const app = await rawClient(bridge.url);
    app.send(["1", "1", "pairing", "phx_join", { code: "ABCDE-12345", device_name: "x" }]);
    await until(() => server.pairRequests.length === 1, "pairing forwarded (the join waits for the server)");
    app.send(["1", "2", "pairing", "api", { method: "GET", path: "/sessions" }]);
    expect(payloadOf(await app.next(byRef("2"), "reply on pairing"))).toEqual({
      status: "error",
      response: { reason: "invalid_request" },
    });
    app.send(["1", "3", "events:server:srv1", "api", { method: "GET", path: "/sessions" }]);
    expect(payloadOf(await app.next(byRef("3"), "reply on events"))).toEqual({
      status: "error",
      response: { reason: "unmatched topic" },
    });
    app.send(["4", "4", "events:server:srv1", "phx_join", {}]);
    expect(payloadOf(await app.next(byRef("4"), "events join"))).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    expect(bridge.log.has("push on the pairing topic refused")).toBe(true);
  });
});
