// The relay checks a call's grant again before it answers (docs/bridge.md "Relay" rule 7, B176). A grant withdrawn
// closes its sockets in the same turn, so the re-check is reached only by a socket that stays open while its token no
// longer names the device that made the call: here the server's next grants give the same token hash to another
// device id while the call is in flight. The answer, meant for the first device, must not reach the socket.
import { afterEach, describe, expect, it } from "vitest";
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
} from "./helpers.ts";

afterEach(runCleanups);

describe("the relay's grant re-check", () => {
  it("B176: never answers a call whose token the server now grants to another device; the socket stays served", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const requests: Array<{ request_id: string; device_id: string }> = [];
    server.channel.on(
      "api_request",
      (request: { request_id: string; device_id: string }) => void requests.push(request),
    );
    const socket = phoenixSocket(bridge.url, { params: { token: phone.token } });
    const channel = socket.channel("events:server:srv1", {});
    const events: string[] = [];
    channel.on("session_event", (payload: { event: { event_id: string } }) => void events.push(payload.event.event_id));
    expect((await joinOnce(channel)).status).toBe("ok");

    const replies: unknown[] = [];
    channel
      .push("api", { method: "GET", path: "/sessions" })
      .receive("ok", (reply: unknown) => void replies.push(reply))
      .receive("error", (reply: unknown) => void replies.push(reply));
    await until(() => requests.length === 1, "the call reached the server");
    expect(requests[0]!.device_id).toBe("d1");

    // The same token now names d2: the socket is not closed (its hash is still granted), but the call was d1's.
    expect(
      await pushOnce(server.channel, "grants", {
        devices: [{ device_id: "d2", token_hash: phone.grant.token_hash }],
        codes: [],
      }),
    ).toEqual({ status: "ok", response: {} });
    server.channel.push("api_result", {
      request_id: requests[0]!.request_id,
      status: 200,
      body: { sessions: ["d1's"] },
    });
    // An event pushed after the answer reaches the socket after anything the answer would have sent it.
    expect((await pushOnce(server.channel, "session_event", { event: testEvent(1) })).status).toBe("ok");
    await until(() => events.length === 1, "the next event reached the socket");
    expect(replies).toEqual([]);
    expect(bridge.log.has("relay answer for a revoked device dropped")).toBe(true);
  });
});
