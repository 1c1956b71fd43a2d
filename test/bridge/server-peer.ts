// A real server for end-to-end bridge tests: the lead's runtime on a temp SQLite file, listening on 127.0.0.1,
// with the forwarder started against a test bridge.
import { startForwarder, type Forwarder, type ForwarderOptions } from "../../server/forwarder/forwarder.ts";
import type { RuntimeOptions } from "../../server/runtime.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { cleanups, tempDir } from "./helpers.ts";

export interface ServerPeer {
  server: TestServer;
  forwarder: Forwarder;
  /** Stops the forwarder and the runtime, keeping the data dir for a restart. */
  stop(): Promise<void>;
}

export async function serverPeer(
  bridgeUrl: string,
  dataDir = tempDir(),
  options: Partial<RuntimeOptions> = {},
  forwarderOptions: ForwarderOptions = {},
): Promise<ServerPeer> {
  const server = await startTestServer(
    { server: { server_id: "srv1", public_url: "http://127.0.0.1:8787" } },
    { dataDir, ...options },
  );
  await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const forwarder = startForwarder(server.runtime.ctx, { bridgeUrl, reconnectAfterMs: () => 20, ...forwarderOptions });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await forwarder.stop();
    await server.close(true);
  };
  cleanups.push(stop);
  return { server, forwarder, stop };
}

/** Makes a pairing code on the peer's server (POST /pairing). */
export async function pairingCode(peer: ServerPeer): Promise<string> {
  const created = await peer.server.request({ method: "POST", url: "/pairing", payload: {} });
  if (created.status !== 201) throw new Error(`POST /pairing answered ${created.status}`);
  return created.json.code as string;
}

export async function createSession(peer: ServerPeer): Promise<string> {
  const response = await peer.server.request({ method: "POST", url: "/sessions", payload: {} });
  if (response.status !== 201) throw new Error(`POST /sessions answered ${response.status}`);
  return (response.json as { session: { id: string } }).session.id;
}
