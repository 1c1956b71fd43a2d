// How the client library presents its device token (docs/bridge.md "Topics", B39): as phoenix 1.8's subprotocol
// `base64url.bearer.phx.<base64>`, never in the URL, which proxies and access logs record. A loopback TCP proxy in
// front of a real bridge records what a reverse proxy would see.
import { createServer, connect, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { BridgeConnection } from "../../client/transport/bridge.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { cleanups, device, fakeServer, pushOnce, runCleanups, testBridge, testEvent, until } from "./helpers.ts";

afterEach(runCleanups);

/** A TCP relay to `port` that keeps the first bytes (the HTTP request head) of every connection. */
async function recordingProxy(port: number): Promise<{ port: number; heads: string[] }> {
  const heads: string[] = [];
  const proxy: Server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    let head = "";
    client.on("data", (chunk: Buffer) => {
      if (!head.includes("\r\n\r\n")) {
        head += chunk.toString("latin1");
        if (head.includes("\r\n\r\n")) heads.push(head.split("\r\n\r\n")[0]!);
      }
    });
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
      }),
  );
  return { port: (proxy.address() as AddressInfo).port, heads };
}

describe("the library's device token", () => {
  it("travels in the WebSocket subprotocol, not in the URL, and the bridge accepts it (B39)", async () => {
    const bridge = await testBridge();
    const phone = device("d1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const proxy = await recordingProxy(bridge.port);
    const events: AnyEvent[] = [];
    const verdicts: string[] = [];
    const connection = new BridgeConnection(
      {
        url: `ws://127.0.0.1:${proxy.port}/socket`,
        serverId: "srv1",
        token: phone.token,
        WebSocket,
        sinceId: () => undefined,
      },
      {
        joined: (replay) => void verdicts.push(replay),
        down: () => undefined,
        event: (event) => void events.push(event),
        refused: (reason) => void verdicts.push(reason),
        malformed: () => undefined,
      },
    );
    cleanups.push(() => connection.close());
    connection.connect();
    await until(() => verdicts.length > 0, "the library joined");
    expect(verdicts).toEqual(["gap"]);
    expect((await pushOnce(server.channel, "session_event", { event: testEvent(1) })).status).toBe("ok");
    await until(() => events.length === 1, "the event reached the library");

    expect(proxy.heads).toHaveLength(1);
    const [requestLine, ...headers] = proxy.heads[0]!.split("\r\n");
    expect(requestLine).toMatch(/^GET \/socket\/websocket\?vsn=2\.0\.0 HTTP\/1\.1$/);
    expect(proxy.heads[0]).not.toContain(phone.token);
    const offered = headers.find((line) => line.toLowerCase().startsWith("sec-websocket-protocol:"));
    expect(offered).toBe(
      `Sec-WebSocket-Protocol: phoenix,base64url.bearer.phx.${Buffer.from(phone.token).toString("base64").replace(/=/g, "")}`,
    );
  });
});
