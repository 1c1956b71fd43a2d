// The relay's test rig: the scripted backend, a real server (SQLite in a temp dir, listening on 127.0.0.1) whose
// forwarder runs relayed calls, a real bridge, and a device paired through the bridge. Official phoenix sockets
// stand in for apps; `closedPort` is an address nothing listens on (server_url unreachable).
import type { AddressInfo } from "node:net";
import type { Channel, Socket } from "phoenix";
import { pair } from "../../client/connection/pair.ts";
import type { Credentials } from "../../client/connection/credentials.ts";
import type { BridgeConfig } from "../../bridge/config.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { startForwarder, type Forwarder } from "../../server/forwarder/forwarder.ts";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import {
  cleanups,
  joinOnce,
  phoenixSocket,
  pushOnce,
  testBridge,
  until,
  type Reply,
  type TestBridge,
} from "../bridge/helpers.ts";
import { NodeWebSocket } from "../client/support/stack.ts";
import { startRunnerServer, type RunnerServer } from "../runner/helpers.ts";
import type { TestServer } from "../support/server.ts";

export interface RelayStack {
  backend: ScriptedBackend;
  server: RunnerServer;
  serverUrl: string;
  bridge: TestBridge;
  forwarder: Forwarder;
  /** Stops the forwarder: the server is away from the bridge. */
  stopForwarder(): Promise<void>;
}

export async function relayStack(
  bridgeOverrides: Partial<BridgeConfig> = {},
  serverConfig: ConfigInput = {},
): Promise<RelayStack> {
  const backend = await startScriptedBackend();
  cleanups.push(() => backend.close());
  const bridge = await testBridge(bridgeOverrides);
  const server = await startRunnerServer(backend, {
    ...serverConfig,
    server: { server_id: "srv1", public_url: "http://127.0.0.1:1" },
  });
  cleanups.push(() => server.close());
  const { serverUrl, forwarder } = await linkToBridge(server, bridge);
  return { backend, server, serverUrl, bridge, forwarder, stopForwarder: () => forwarder.stop() };
}

/** Puts server srv1 on 127.0.0.1 and links it to `bridge` (its forwarder is stopped after the test). */
export async function linkToBridge(
  server: Pick<TestServer, "runtime">,
  bridge: Pick<TestBridge, "url" | "core">,
): Promise<{ serverUrl: string; forwarder: Forwarder }> {
  await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const serverUrl = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
  return { serverUrl, forwarder: await forwardTo(server, bridge, "server joined the bridge") };
}

/** Starts the forwarder of server srv1 to `bridge` (stopped after the test) and waits until it has joined. */
export async function forwardTo(
  server: Pick<TestServer, "runtime">,
  bridge: Pick<TestBridge, "url" | "core">,
  what: string,
): Promise<Forwarder> {
  const forwarder = startForwarder(server.runtime.ctx, {
    bridgeUrl: bridge.url,
    reconnectAfterMs: () => 20,
    app: server.runtime.app,
  });
  cleanups.push(() => forwarder.stop());
  await until(() => bridge.core.registry.get("srv1")?.link !== undefined, what);
  return forwarder;
}

/** Pairs a device through the bridge with the client library; server_url as given (a closed port, say). */
/** Pairs a device through the bridge, for the acting admin (Owner) or for `personId`. */
export async function pairDevice(
  stack: RelayStack,
  serverUrl: string,
  name = "phone",
  personId?: string,
): Promise<Credentials> {
  const payload = personId === undefined ? {} : { person_id: personId };
  const created = await stack.server.request({ method: "POST", url: "/pairing", payload });
  const code = (created.json as { code: string }).code;
  await until(
    () => stack.bridge.core.registry.findCode(hashPairingCode(code)) !== undefined,
    "code registered on the bridge",
  );
  const credentials = await pair({ bridgeUrl: stack.bridge.url, code, deviceName: name, WebSocket: NodeWebSocket });
  return { ...credentials, server_url: serverUrl };
}

/** A port nothing listens on, for a connection that must be refused. */
export { freePort as closedPort } from "../support/ports.ts";

/** An official phoenix app socket joined to its server's events topic. */
export async function appChannel(
  stack: RelayStack,
  token: string,
): Promise<{ socket: Socket; channel: Channel; closes: number[] }> {
  const socket = phoenixSocket(stack.bridge.url, { authToken: token });
  const closes: number[] = [];
  socket.onClose((event: { code: number }) => void closes.push(event.code));
  const channel = socket.channel("events:server:srv1", {});
  const joined = await joinOnce(channel);
  if (joined.status !== "ok") throw new Error(`events join answered ${JSON.stringify(joined)}`);
  return { socket, channel, closes };
}

/** A fresh relay stack with one phone paired to the owner and its app socket joined: where most relay tests start. */
export async function pairedRelay(): Promise<{ stack: RelayStack; credentials: Credentials; channel: Channel }> {
  const stack = await relayStack();
  const credentials = await pairDevice(stack, stack.serverUrl);
  const { channel } = await appChannel(stack, credentials.device_token);
  return { stack, credentials, channel };
}

/** One relayed call as an app makes it. */
export function relay(channel: Channel, method: string, path: string, body?: unknown): Promise<Reply> {
  return pushOnce(channel, "api", { method, path, ...(body === undefined ? {} : { body }) });
}
