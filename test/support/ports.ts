// A loopback port nothing listens on: the system hands out a free number, the probe closes, and the number is the
// caller's, for a server to start on (its URL known before it starts) or for a connection that must be refused.
import { createServer, type AddressInfo } from "node:net";

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
