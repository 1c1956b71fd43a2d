// phoenix on demand (docs/app.md "Start-up", SU8; docs/client.md "Install"): a bridge connection made before the
// library has phoenix makes no socket until it is in, and a push made meanwhile waits for it, as it would for the
// join, instead of failing as `closed`. A real bridge and a server peer over loopback; the file runs in a worker of
// its own (it starts a bridge), so nothing has asked the library for phoenix before it.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { BridgeConnection, type WebSocketConstructor } from "../../client/transport/bridge.ts";
import { loadedPhoenix } from "../../client/transport/phoenix-load.ts";
import { cleanups, device, fakeServer, runCleanups, testBridge } from "../bridge/helpers.ts";

afterEach(runCleanups);

const phone = device("dev_phone");

describe("phoenix fetched on the first connection (SU8)", () => {
  it("makes the socket once phoenix is in; a push made before then reaches the bridge and is answered", async () => {
    const bridge = await testBridge();
    await fakeServer(bridge.url, { devices: [phone.grant] });
    const seen = { joins: 0, downs: [] as string[] };
    const connection = new BridgeConnection(
      {
        url: bridge.url,
        serverId: "srv1",
        token: phone.token,
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        sinceId: () => undefined,
      },
      {
        joined: () => void seen.joins++,
        down: (reason) => void seen.downs.push(reason),
        event: () => undefined,
        refused: () => undefined,
        malformed: () => undefined,
      },
    );
    cleanups.push(() => connection.close());
    expect(loadedPhoenix()).toBeUndefined();

    // An event the bridge refuses on the events topic: any answer proves the push was sent after the join.
    const reply = connection.push("not_a_call", {}, 5_000);
    const holdsSocket = () => (connection as unknown as { socket: object | undefined }).socket !== undefined;
    expect(holdsSocket()).toBe(false);

    expect(await reply).toEqual({ status: "error", response: { reason: "read_only" } });
    expect([holdsSocket(), seen.joins, seen.downs, loadedPhoenix() !== undefined]).toEqual([true, 1, [], true]);
  });
});
