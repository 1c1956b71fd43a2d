// A real server listening on 127.0.0.1 (port 0) against the scripted backend, and a ChatClient pointed at it:
// the client library's typed methods go over real HTTP. The client is never started (no bridge here); it holds
// the admin token, which every session route accepts like a device token.
import type { AddressInfo } from "node:net";
import { ChatClient } from "../../client/index.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { startRunnerServer, type RunnerServer } from "../runner/helpers.ts";
import { ADMIN_TOKEN } from "../support/server.ts";

export interface AppStack {
  backend: ScriptedBackend;
  server: RunnerServer;
  url: string;
  client: ChatClient;
  close(): Promise<void>;
}

export async function startAppStack(config: ConfigInput = {}): Promise<AppStack> {
  const backend = await startScriptedBackend();
  const server = await startRunnerServer(backend, config);
  await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
  const client = new ChatClient({
    server_url: url,
    device_token: ADMIN_TOKEN,
    bridge_url: "ws://127.0.0.1:9/socket",
    server_id: "srv",
    device_id: "admin",
  });
  return {
    backend,
    server,
    url,
    client,
    async close() {
      client.close();
      await server.close();
      await backend.close();
    },
  };
}
