// The forwarder's socket to the bridge (server/forwarder/turn-corked-websocket.ts): what it sends in one event-loop
// turn is held (corked) until the turn's end, then leaves in one write, in order; nothing stays held (B161).
import { holds } from "../support/holds.ts";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket as ServerSide } from "ws";
import { TurnCorkedWebSocket } from "../../server/forwarder/turn-corked-websocket.ts";

let server: WebSocketServer | undefined;
afterEach(() => server?.close());

async function connected(): Promise<{ client: TurnCorkedWebSocket; tcp: Socket; received: string[] }> {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
  const received: string[] = [];
  server.on("connection", (peer: ServerSide) => peer.on("message", (data: Buffer) => received.push(data.toString())));
  const client = new TurnCorkedWebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}/`);
  // ws emits open in the same tick as upgrade: listen for both at once.
  const upgraded = new Promise<Socket>((resolve) =>
    client.once("upgrade", (response) => resolve(response.socket as Socket)),
  );
  await new Promise<void>((resolve) => client.once("open", () => resolve()));
  const tcp = await upgraded;
  return { client, tcp, received };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function until(check: () => boolean): Promise<void> {
  return holds(check, "the frames arrived", 5000);
}

describe("TurnCorkedWebSocket (B161)", () => {
  it("holds a turn's frames until the turn ends, then writes them at once, in order", async () => {
    const { client, tcp, received } = await connected();
    client.send("one");
    client.send("two");
    client.send("three");
    expect(tcp.writableCorked).toBe(1);
    expect(tcp.writableLength).toBeGreaterThan(0); // all three wait for one write
    await nextTurn();
    expect(tcp.writableCorked).toBe(0);
    await until(() => received.length === 3);
    expect(received).toEqual(["one", "two", "three"]);
    client.close();
  });

  it("sends a lone frame of a later turn as well (the socket is never left corked)", async () => {
    const { client, tcp, received } = await connected();
    client.send("first");
    await nextTurn();
    // The first frame's write is over once it has arrived: the next send is in a later turn, on an idle socket.
    await until(() => received.length === 1);
    const written: Array<Error | null | undefined> = [];
    client.send("later", (error?: Error | null) => void written.push(error));
    await nextTurn();
    expect(tcp.writableCorked).toBe(0);
    await until(() => received.length === 2 && written.length === 1);
    expect(received).toEqual(["first", "later"]);
    expect(written[0] ?? undefined).toBeUndefined(); // the write's callback ran, without an error
    client.close();
  });
});
