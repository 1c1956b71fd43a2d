// The API relay's cost (issue 14): GET /sessions/{id}/messages relayed through the bridge (an official phoenix
// client pushing `api`) against the same request over direct HTTP (undici, keep-alive) on loopback, at 1 and at
// 50 concurrent apps, each app sending its next request when the last answered. Prints one JSON line: p50/p99 of
// both per concurrency, what the relay adds at p50, and the relay's throughput at 50 apps. The server, its
// forwarder and the bridge run in this one process (as `npm start` runs two, this shares their cores: a loaded
// machine shows in both figures alike). The relay's rate bounds are lifted here: this measures its cost, not them.
// Both modes: plain apps push `api` in clear; encrypting apps (`e2e_relay_*`) seal each call to the server's key and
// open the sealed answer (client/transport/sealed-relay.ts), as the library does for a device paired with a key.
// Usage: node --import tsx scripts/bench/relay.ts [--requests 2000] [--warmup 300]
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Socket, type Channel } from "phoenix";
import { Agent, request } from "undici";
import { WebSocket } from "ws";
import { startBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../bridge/config.ts";
import { parseConfig } from "../../server/config/load.ts";
import { startForwarder } from "../../server/forwarder/forwarder.ts";
import { hashToken } from "../../server/auth/tokens.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { percentile } from "./stats.ts";
import { deviceKeyFor, sealedRelayCall } from "./fanout/e2e.ts";

const { values } = parseArgs({ options: { requests: { type: "string", default: "2000" }, warmup: { type: "string", default: "300" } } });
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const ADMIN = "bench-admin-token";
const RELAY_BOUNDS = { perSocketPerSecond: 1_000_000, perServerPerSecond: 1_000_000, inFlightPerServer: 10_000 };

type Call = () => Promise<void>;

/** `apps` workers, each sending its next call when the last answered, `total` calls in all; latencies in ms. */
async function run(calls: Call[], total: number): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let left = total;
  const start = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      while (left > 0) {
        left--;
        const sent = performance.now();
        await call();
        latencies.push(performance.now() - sent);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - start) / 1000 };
}

function relayCall(channel: Channel, path: string): Call {
  return () =>
    new Promise((resolve, reject) => {
      channel
        .push("api", { method: "GET", path })
        .receive("ok", (reply: { status: number }) => (reply.status === 200 ? resolve() : reject(new Error(`relayed status ${reply.status}`))))
        .receive("error", (reply: unknown) => reject(new Error(`relay refused: ${JSON.stringify(reply)}`)))
        .receive("timeout", () => reject(new Error("relay timeout")));
    });
}

function directCall(base: string, dispatcher: Agent, token: string, path: string): Call {
  return async () => {
    const response = await request(`${base}${path}`, { headers: { authorization: `Bearer ${token}` }, dispatcher });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`direct status ${response.statusCode}`);
  };
}

async function main() {
  const dir = tempDir("bench-relay-");
  const bridge = await startBridge({ config: defaultBridgeConfig({ port: 0, dataDir: `${dir}/bridge`, relay: RELAY_BOUNDS }), log: { log: () => undefined } });
  const runtime = createRuntime({ config: parseConfig({ server: { server_id: "bench" } }), dataDir: `${dir}/server`, adminToken: ADMIN });
  const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const forwarder = startForwarder(runtime.ctx, { bridgeUrl: bridge.url, app: runtime.app });
  const { ctx } = runtime;

  // A session of ten messages, and 50 paired devices the bridge knows.
  const session = ctx.sessions.create();
  for (let i = 0; i < 10; i++) ctx.sessions.append(session.id, { role: i % 2 === 0 ? "user" : "assistant", content: `message ${i} `.repeat(20), metadata: {} });
  const tokens: string[] = [];
  for (let i = 0; i < 50; i++) {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode().code, `app ${i}`);
    if (!redeemed.ok) throw new Error("pairing failed");
    tokens.push(redeemed.device_token);
  }
  while (tokens.some((token) => !bridge.core.registry.device(hashToken(token)))) await new Promise((r) => setTimeout(r, 20));

  const path = `/sessions/${session.id}/messages`;
  const sockets: Socket[] = [];
  const channels: Channel[] = [];
  for (const token of tokens) {
    const socket = new Socket(bridge.url, { transport: WebSocket as unknown as new (endpoint: string) => object, authToken: token });
    socket.connect();
    const channel = socket.channel(`events:server:${ctx.serverId}`, {});
    await new Promise<void>((resolve, reject) => channel.join().receive("ok", () => resolve()).receive("error", (e: unknown) => reject(new Error(JSON.stringify(e)))));
    sockets.push(socket);
    channels.push(channel);
  }
  const dispatcher = new Agent({ connections: 60 });
  const direct = tokens.map((token) => directCall(base, dispatcher, token, path));
  const relayed = channels.map((channel) => relayCall(channel, path));
  const sealed = await encryptingApps(bridge.url, ctx, path, sockets, (token) => bridge.core.registry.device(hashToken(token)) !== undefined);

  const figures: Record<string, number> = {};
  for (const apps of [1, 50]) {
    // Warm both paths (JIT, connections), then alternate them so drift in the machine's load hits both.
    await run(direct.slice(0, apps), WARMUP);
    await run(relayed.slice(0, apps), WARMUP);
    const d = await run(direct.slice(0, apps), REQUESTS);
    const r = await run(relayed.slice(0, apps), REQUESTS);
    const round = (n: number) => Math.round(n * 100) / 100;
    figures[`direct_p50_ms_${apps}`] = round(percentile(d.latencies, 50));
    figures[`direct_p99_ms_${apps}`] = round(percentile(d.latencies, 99));
    figures[`relay_p50_ms_${apps}`] = round(percentile(r.latencies, 50));
    figures[`relay_p99_ms_${apps}`] = round(percentile(r.latencies, 99));
    figures[`relay_adds_p50_ms_${apps}`] = round(percentile(r.latencies, 50) - percentile(d.latencies, 50));
    figures[`direct_req_per_s_${apps}`] = Math.round(REQUESTS / d.seconds);
    figures[`relay_req_per_s_${apps}`] = Math.round(REQUESTS / r.seconds);
    await run(sealed.slice(0, apps), WARMUP);
    const e = await run(sealed.slice(0, apps), REQUESTS);
    figures[`e2e_relay_p50_ms_${apps}`] = round(percentile(e.latencies, 50));
    figures[`e2e_relay_p99_ms_${apps}`] = round(percentile(e.latencies, 99));
    figures[`e2e_relay_adds_p50_ms_${apps}`] = round(percentile(e.latencies, 50) - percentile(r.latencies, 50));
    figures[`e2e_relay_req_per_s_${apps}`] = Math.round(REQUESTS / e.seconds);
    figures[`e2e_relay_ratio_to_plain_${apps}`] = round(r.seconds / e.seconds);
  }

  for (const socket of sockets) socket.disconnect();
  await dispatcher.close();
  await forwarder.stop();
  await runtime.close();
  await bridge.close();
  rmSync(dir, { recursive: true, force: true });
  const load = loadavg()[0]!;
  process.stdout.write(`${JSON.stringify({ bench: "relay", requests: REQUESTS, ...figures, relay_bounds: RELAY_BOUNDS, load_average_1m: Math.round(load * 10) / 10 })}\n`);
  process.exit(0);
}

/** 50 apps paired with a key (end-to-end encryption), each a sealed relayed call on its own socket. */
async function encryptingApps(url: string, ctx: ReturnType<typeof createRuntime>["ctx"], path: string, sockets: Socket[], granted: (token: string) => boolean): Promise<Call[]> {
  const calls: Call[] = [];
  for (let i = 0; i < 50; i++) {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode().code, `e2e app ${i}`, deviceKeyFor("e2e"));
    if (!redeemed.ok) throw new Error("pairing failed");
    while (!granted(redeemed.device_token)) await new Promise((r) => setTimeout(r, 20));
    const socket = new Socket(url, { transport: WebSocket as unknown as new (endpoint: string) => object, authToken: redeemed.device_token });
    socket.connect();
    sockets.push(socket);
    const channel = socket.channel(`events:server:${ctx.serverId}`, {});
    await new Promise<void>((resolve, reject) => channel.join().receive("ok", () => resolve()).receive("error", (e: unknown) => reject(new Error(JSON.stringify(e)))));
    calls.push(sealedRelayCall(channel, ctx.serverId, redeemed.device_id, ctx.e2e.publicKey, path));
  }
  return calls;
}

await main();
