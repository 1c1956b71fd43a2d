// A TCP proxy on 127.0.0.1 in front of a bridge that can black-hole the connections it carries: from blackHole() on,
// their bytes are dropped both ways while both sockets stay open (no FIN, no RST), as a link behind a dead NAT or a
// pulled cable looks. Connections opened after it pass again.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { cleanups } from "./helpers.ts";

interface Pair {
  client: Socket;
  upstream: Socket;
  holed: boolean;
}

export interface BlackHoleProxy {
  /** `ws://127.0.0.1:<port>/socket`, the bridge reached through the proxy. */
  url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Drops every byte of the connections open now, both ways, without closing them. */
  blackHole(): void;
}

export async function blackHoleProxy(targetPort: number): Promise<BlackHoleProxy> {
  const pairs = new Set<Pair>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect(targetPort, "127.0.0.1");
    const pair: Pair = { client, upstream, holed: false };
    pairs.add(pair);
    client.on("data", (data) => void (pair.holed || upstream.write(data)));
    upstream.on("data", (data) => void (pair.holed || client.write(data)));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on("error", end);
      // A held connection stays open even when the far side ends: that is the black hole.
      socket.on("close", () => void (pair.holed || end()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/socket`,
    get accepted() {
      return accepted;
    },
    blackHole: () => pairs.forEach((pair) => (pair.holed = true)),
  };
}
