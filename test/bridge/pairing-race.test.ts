// The pairing race (issue 14): a valid code tried while its server has not (re)joined the bridge is answered
// `server_unavailable` (the code kept, no failure counted), and the client library retries it until the server is
// back. Before, a bridge restart forgot every code and answered `invalid_code` for good, counted as a guess.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { pair, PairingError } from "../../client/connection/pair.ts";
import type { WebSocketConstructor } from "../../client/transport/bridge.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import {
  fakeServer,
  joinOnce,
  phoenixSocket,
  pushOnce,
  runCleanups,
  testBridge,
  until,
  pairedResult,
} from "./helpers.ts";

afterEach(runCleanups);

const CODE = "AAAAABBBBB";
const Ws = WebSocket as unknown as WebSocketConstructor;

async function bridgeWithCode() {
  const bridge = await testBridge();
  const codes = [{ code_hash: sha256Hex(CODE), expires_at: bridge.clock.now() + 600_000 }];
  const server = await fakeServer(bridge.url, { codes });
  return { bridge, server, codes };
}

function tryCode(url: string) {
  return joinOnce(phoenixSocket(url).channel("pairing", { code: CODE, device_name: "phone" }));
}

describe("a valid code while its server is away (B60)", () => {
  it("answers server_unavailable after a bridge restart, counts nothing, and the library pairs once the server rejoins", async () => {
    const first = await bridgeWithCode();
    first.server.socket.disconnect();
    await first.bridge.close();
    const bridge = await testBridge({}, first.bridge.dataDir);
    const paired = pair({
      bridgeUrl: bridge.url,
      code: CODE,
      deviceName: "phone",
      e2e: false,
      WebSocket: Ws,
      retryDelaysMs: [20],
    });
    await until(
      () =>
        bridge.log.records.filter((record) => record.msg === "pairing code for a server not joined yet").length >= 2,
      "two attempts answered server_unavailable",
    );
    expect(bridge.core.metrics.pairingFailures).toBe(0);

    const server = await fakeServer(bridge.url, { codes: first.codes });
    await until(() => server.pairRequests.length === 1, "the retried attempt forwarded to the server");
    const requestId = server.pairRequests[0]!.request_id as string;
    await pushOnce(server.channel, "pair_result", pairedResult(requestId));
    await expect(paired).resolves.toMatchObject({ server_id: "srv1", device_id: "dev_1" });
    expect(bridge.core.metrics.pairingFailures).toBe(0);
  });

  it("keeps the code while the server's channel is down: every try is server_unavailable, none counted", async () => {
    const { bridge, server } = await bridgeWithCode();
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the server's channel ended");
    expect(await tryCode(bridge.url)).toEqual({ status: "error", response: { reason: "server_unavailable" } });
    expect(await tryCode(bridge.url)).toEqual({ status: "error", response: { reason: "server_unavailable" } });
    expect(bridge.core.metrics.pairingFailures).toBe(0);
    expect(await bridge.core.pairing.pairingLimited("127.0.0.1")).toBe(false);
  });

  it("still counts a wrong code while a server is away", async () => {
    const { bridge, server } = await bridgeWithCode();
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the server's channel ended");
    const wrong = await joinOnce(
      phoenixSocket(bridge.url).channel("pairing", { code: "ZZZZZYYYYY", device_name: "phone" }),
    );
    expect(wrong).toEqual({ status: "error", response: { reason: "invalid_code" } });
    expect(bridge.core.metrics.pairingFailures).toBe(1);
  });

  it("gives server_unavailable as the library's answer once its retry window is spent", async () => {
    const { bridge, server } = await bridgeWithCode();
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the server's channel ended");
    const paired = pair({
      bridgeUrl: bridge.url,
      code: CODE,
      deviceName: "phone",
      WebSocket: Ws,
      retryUnavailableForMs: 0,
    });
    await expect(paired).rejects.toEqual(new PairingError("server_unavailable"));
  });
});

describe("pairing where WebSockets are blocked (C74)", () => {
  it("pairs over the bridge's long-poll, and says bridge_unreachable when the bridge is not there at all", async () => {
    const { bridge, server } = await bridgeWithCode();
    const Blocked = class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url.replace(/:\d+\//, ":1/"), protocols);
      }
    } as unknown as WebSocketConstructor;
    const paired = pair({ bridgeUrl: bridge.url, code: CODE, deviceName: "phone", e2e: false, WebSocket: Blocked });
    // Two refused WebSocket attempts (each with its reconnect delay) come before long-poll: docs/client.md "Transport choice".
    await until(() => server.pairRequests.length === 1, "the attempt forwarded over long-poll", 15_000);
    const requestId = server.pairRequests[0]!.request_id as string;
    await pushOnce(server.channel, "pair_result", pairedResult(requestId));
    await expect(paired).resolves.toMatchObject({ device_id: "dev_1" });
    await expect(
      pair({ bridgeUrl: "ws://127.0.0.1:1/socket", code: CODE, deviceName: "phone", WebSocket: Ws }),
    ).rejects.toEqual(new PairingError("bridge_unreachable"));
  });
});
