// A TCP proxy in front of the bridge, so a test can cut every connection without a close frame (a dropped Wi-Fi
// link), refuse new ones for a while, and let them through again; or black-hole them: every connection stays open
// but no byte passes either way (packets dropped, no close), until restore().
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<[Socket, Socket]>();
  private refusing = false;
  private holding = false;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: () => number): Promise<CuttableProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const proxy = new CuttableProxy(server, (server.address() as AddressInfo).port);
    server.on("connection", (client) => proxy.relay(client, targetPort()));
    return proxy;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/socket`;
  }

  /** Destroys every relayed connection at the TCP level: no close frame reaches either side. */
  cut({ refuse }: { refuse: boolean }): void {
    this.refusing = refuse;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  allow(): void {
    this.refusing = false;
  }

  /** Drops every byte from now on, both ways, on open and new connections; nothing is closed. */
  blackhole(): void {
    this.holding = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Lets bytes through again (what was held is delivered late, as after a long stall). */
  restore(): void {
    this.holding = false;
    for (const pair of this.pairs) this.join(pair);
  }

  async close(): Promise<void> {
    this.cut({ refuse: true });
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket, port: number): void {
    if (this.refusing) return void client.destroy();
    const upstream = connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    client.on("close", () => this.pairs.delete(pair));
    if (!this.holding) this.join(pair);
  }

  private join([client, upstream]: [Socket, Socket]): void {
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
