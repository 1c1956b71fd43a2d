// A TCP load balancer for tests: each connection goes to the first backend that accepts it, as a balancer with
// health checks sends traffic away from a dead node. The server's forwarder reaches the cluster through it.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface Balancer {
  port: number;
  close(): Promise<void>;
}

export async function startBalancer(backendPorts: number[]): Promise<Balancer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.pause();
    tryBackend(client, backendPorts, 0, sockets);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function tryBackend(client: Socket, ports: number[], index: number, sockets: Set<Socket>): void {
  if (index >= ports.length) return void client.destroy();
  const upstream = connect(ports[index]!, "127.0.0.1");
  let connected = false;
  upstream.once("error", () => {
    if (!connected) tryBackend(client, ports, index + 1, sockets);
  });
  upstream.once("connect", () => {
    connected = true;
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
}
