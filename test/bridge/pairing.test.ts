// Pairing requests the app gave up on (docs/bridge.md "Pairing and devices"): a cancelled wait leaves no timer
// behind, and a device created for an app that is gone is reported to the server, which revokes it. And the failure
// budget (B37): an attacker who spends it cannot keep a valid code out.
import type { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { PendingPairs } from "../../bridge/channels/server-channel.ts";
import type { Connection } from "../../bridge/socket/connection.ts";
import type { ServerState } from "../../bridge/state/registry.ts";
import { AnswerDesk } from "../../bridge/state/answer-desk.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import {
  cleanups,
  fakeServer,
  joinOnce,
  phoenixSocket,
  pushOnce,
  runCleanups,
  testBridge,
  until,
  answerPairings,
  pairedResult,
  codeOnBridge,
} from "./helpers.ts";
import { ManualClock } from "./manual-clock.ts";
import { rawClient } from "./raw-client.ts";
import { serverPeer, pairingCode } from "./server-peer.ts";

afterEach(async () => {
  vi.restoreAllMocks();
  await runCleanups();
});

describe("pairing requests given up on", () => {
  it("clears the wait's timer when the app's join is cancelled", () => {
    const sent: unknown[] = [];
    const state = {
      id: "srv1",
      push: (_event: string, payload: unknown) => sent.push(payload) > 0,
    } as unknown as ServerState;
    const clock = new ManualClock();
    const app = { open: true } as Connection;
    const asked = new PendingPairs(clock, new AnswerDesk()).ask(state, app, "AAAAABBBBB", "phone", undefined, 600_000);
    expect(sent).toHaveLength(1);
    expect(clock.sleepingFor(600_000)).toBe(1);
    asked.cancel();
    expect(clock.sleepingFor(600_000)).toBe(0);
  });

  it("times the wait for the server's answer on the bridge's clock: server_unavailable once pairingTimeoutMs pass on it", async () => {
    const bridge = await testBridge({ pairingTimeoutMs: 10 * 60_000 });
    const server = await fakeServer(bridge.url, {
      codes: [{ code_hash: sha256Hex("AAAAABBBBB"), expires_at: bridge.clock.now() + 600_000 }],
    });
    const reply = joinOnce(phoenixSocket(bridge.url).channel("pairing", { code: "AAAAABBBBB", device_name: "phone" }));
    await until(() => server.pairRequests.length === 1, "pair_request forwarded");
    // The server never answers; the wait ends when the bridge's clock says so, not after 10 real minutes.
    bridge.clock.advance(bridge.core.config.pairingTimeoutMs);
    expect(await reply).toEqual({ status: "error", response: { reason: "server_unavailable" } });
  });

  it("answers a pair_result nobody waits for with 'abandoned' and logs it", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, {
      codes: [{ code_hash: sha256Hex("AAAAABBBBB"), expires_at: bridge.clock.now() + 600_000 }],
    });
    const app = phoenixSocket(bridge.url);
    const channel = app.channel("pairing", { code: "AAAAABBBBB", device_name: "phone" });
    channel.join();
    await until(() => server.pairRequests.length === 1, "pair_request forwarded");
    channel.leave();
    app.disconnect();
    await until(() => bridge.core.metrics.socketsOpen === 1, "the app is gone");
    const requestId = server.pairRequests[0]!.request_id as string;
    const answer = await pushOnce(server.channel, "pair_result", pairedResult(requestId));
    expect(answer).toEqual({ status: "error", response: { reason: "abandoned" } });
    expect(
      bridge.log.records.find((record) => record.msg === "pair_result for a pairing nobody waits for")?.fields,
    ).toMatchObject({ server_id: "srv1", device_id: "dev_1" });
    // An error result for a request nobody waits for needs nothing from the server.
    expect(
      await pushOnce(server.channel, "pair_result", { request_id: requestId, status: "error", reason: "invalid_code" }),
    ).toEqual({ status: "ok", response: {} });
  });

  it("answers 'abandoned' when the app's socket is closing: its close frame came, the close is not finished (B27)", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, {
      codes: [{ code_hash: sha256Hex("AAAAABBBBB"), expires_at: bridge.clock.now() + 600_000 }],
    });
    const app = await rawClient(bridge.url);
    app.send(["1", "1", "pairing", "phx_join", { code: "AAAAABBBBB", device_name: "phone" }]);
    await until(() => server.pairRequests.length === 1, "pair_request forwarded");
    // The app sends its close frame and then reads nothing more, so the bridge's side stays in CLOSING: no `close`
    // event yet, the channel not yet ended, but a reply could no longer reach the app. The bridge answers a close frame
    // it has read with its own: those bytes arriving say it is CLOSING (a fixed 50 ms wait for it was a race under load).
    const tcp = (app.ws as unknown as { _socket: Socket })._socket;
    tcp.removeAllListeners("data"); // ws's own reader: the app never sees the bridge's close frame, so never ends TCP
    const bridgeClosing = new Promise((resolve) => tcp.once("data", resolve));
    app.ws.close(1000);
    await bridgeClosing;
    const requestId = server.pairRequests[0]!.request_id as string;
    const answer = await pushOnce(server.channel, "pair_result", pairedResult(requestId));
    expect(answer).toEqual({ status: "error", response: { reason: "abandoned" } });
    expect(bridge.core.metrics.joinsOk).toBe(1); // the server's join only
  });

  it("revokes on the server a device whose token never reached the app", async () => {
    // The bridge's wait runs out while the server redeems, so its pair_result finds no waiter.
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const service = peer.server.runtime.ctx.pairing;
    const redeem = service.redeem.bind(service);
    vi.spyOn(service, "redeem").mockImplementation((code, name) => {
      bridge.clock.advance(bridge.core.config.pairingTimeoutMs); // a redeem slower than the bridge's wait
      return redeem(code, name);
    });
    const code = await pairingCode(peer);
    await codeOnBridge(bridge, code, "code registered on the bridge");
    const reply = await joinOnce(phoenixSocket(bridge.url).channel("pairing", { code, device_name: "phone" }));
    expect(reply).toEqual({ status: "error", response: { reason: "server_unavailable" } });
    await until(
      () => bridge.log.has("pair_result for a pairing nobody waits for"),
      "abandoned pairing seen by the bridge",
    );
    await until(() => service.listDevices().some((device) => device.revoked_at !== null), "the orphan device revoked");
    expect(service.listDevices()).toHaveLength(1);
    // ...and the bridge no longer grants its token.
    await until(() => bridge.core.registry.get("srv1")!.devices.size === 0, "grant withdrawn on the bridge");
  });
});

/** Joins `pairing` over a raw socket from a given loopback address; resolves with the reply's payload. */
async function pairFrom(url: string, localAddress: string, code: string): Promise<unknown> {
  const ws = new WebSocket(`${url}/websocket?vsn=2.0.0`, { localAddress });
  cleanups.push(() => ws.terminate());
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const reply = new Promise<unknown>((resolve) =>
    ws.once("message", (data) => resolve((JSON.parse(data.toString()) as unknown[])[4])),
  );
  ws.send(JSON.stringify(["1", "1", "pairing", "phx_join", { code, device_name: "phone" }]));
  return reply;
}

describe("the pairing failure budget", () => {
  it("lets a valid code from a fresh address through while an attacker has spent the overall budget (B37)", async () => {
    const bridge = await testBridge({
      pairingFailuresPerAddress: 3,
      pairingFailuresOverall: 5,
      pairingFailingAddresses: 4,
    });
    const server = await fakeServer(bridge.url, {
      codes: ["AAAAABBBBB", "CCCCCDDDDD"].map((code) => ({
        code_hash: sha256Hex(code),
        expires_at: bridge.clock.now() + 600_000,
      })),
    });
    answerPairings(server);
    const refused = (reason: string) => ({ status: "error", response: { reason } });
    // The attacker spends the overall budget from two addresses: 3 + 2 failures.
    const guesses = [];
    for (const address of ["127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"])
      guesses.push(await pairFrom(bridge.url, address, "ZZZZZZZZZZ"));
    expect(guesses).toEqual(Array(5).fill(refused("invalid_code")));
    // Its addresses are refused unseen now, even with a right code...
    expect(await pairFrom(bridge.url, "127.0.0.3", "AAAAABBBBB")).toEqual(refused("rate_limited"));
    // ...a fresh address gets one look: a wrong guess is refused, and then that address waits too...
    expect(await pairFrom(bridge.url, "127.0.0.4", "ZZZZZZZZZZ")).toEqual(refused("invalid_code"));
    expect(await pairFrom(bridge.url, "127.0.0.4", "ZZZZZZZZZY")).toEqual(refused("rate_limited"));
    // ...and a valid code from a fresh address pairs (it was "rate_limited" before).
    expect(await pairFrom(bridge.url, "127.0.0.5", "AAAAABBBBB")).toEqual({
      status: "ok",
      response: expect.objectContaining({ server_id: "srv1", device_id: "dev_1" }),
    });
    // Past `pairingFailingAddresses` distinct failing addresses in the window, no address gets a look.
    expect(await pairFrom(bridge.url, "127.0.0.6", "ZZZZZZZZZZ")).toEqual(refused("invalid_code"));
    expect(await pairFrom(bridge.url, "127.0.0.7", "CCCCCDDDDD")).toEqual(refused("rate_limited"));
    expect([bridge.core.metrics.pairingFailures, bridge.core.metrics.pairingRateLimited]).toEqual([7, 3]);
    // The next window starts over.
    bridge.clock.advance(bridge.core.config.pairingWindowMs);
    expect(await pairFrom(bridge.url, "127.0.0.3", "CCCCCDDDDD")).toEqual({
      status: "ok",
      response: expect.objectContaining({ device_id: "dev_1" }),
    });
  });
});
