// A TCP proxy in front of the bridge, so a test can cut every connection without a close frame (a dropped Wi-Fi
// link), refuse new ones for a while, and let them through again.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private refusing = false;
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
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
