// Apps in their own process: per device, an official phoenix client joined to `events:server:<id>` (the relay) and
// an undici keep-alive request (direct HTTP), each app sending its next call when the last answered. Encrypting apps
// (`e2e_relay`) each have their own device and socket, and seal each call as the library does (SealedRelayChannel).
import { Socket, type Channel } from "phoenix";
import { Agent, request } from "undici";
import { WebSocket } from "ws";
import { sealedRelayCall } from "../fanout/e2e.ts";
import { phaseMeter, wallNow } from "../fanout/protocol.ts";
import { answerMeter, answerSeams, toApps, type Route, type ToApps } from "./protocol.ts";

type Call = () => Promise<void>;

const meter = phaseMeter();
const send = (message: unknown) => process.send!(message);
const calls: Record<"direct" | "relay" | "e2e_relay", Call[]> = { direct: [], relay: [], e2e_relay: [] };
/** The e2e variants make the same calls, with other seams (set by a `seams` message before they run). */
const callsOf = (route: Route) => calls[route.startsWith("e2e_relay") ? "e2e_relay" : (route as "direct" | "relay")];

function relayCall(channel: Channel, path: string): Call {
  return () =>
    new Promise((resolve, reject) => {
      channel
        .push("api", { method: "GET", path })
        .receive("ok", (reply: { status: number }) =>
          reply.status === 200 ? resolve() : reject(new Error(`relayed status ${reply.status}`)),
        )
        .receive("error", (reply: unknown) => reject(new Error(`relay refused: ${JSON.stringify(reply)}`)))
        .receive("timeout", () => reject(new Error("relay timeout")));
    });
}

function directCall(url: string, dispatcher: Agent, token: string): Call {
  return async () => {
    const response = await request(url, { headers: { authorization: `Bearer ${token}` }, dispatcher });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`direct status ${response.statusCode}`);
  };
}

function join(bridgeUrl: string, topic: string, token: string): Promise<Channel> {
  const socket = new Socket(bridgeUrl, {
    transport: WebSocket as unknown as new (endpoint: string) => object,
    authToken: token,
  });
  socket.connect();
  const channel = socket.channel(topic, {});
  return new Promise((resolve, reject) =>
    channel
      .join()
      .receive("ok", () => resolve(channel))
      .receive("error", (e: unknown) => reject(new Error(JSON.stringify(e)))),
  );
}

async function run(list: Call[], total: number): Promise<void> {
  const latencies: number[] = [];
  let left = total;
  const start = wallNow();
  await Promise.all(
    list.map(async (call) => {
      while (left > 0) {
        left--;
        const sent = performance.now();
        await call();
        latencies.push(performance.now() - sent);
      }
    }),
  );
  send({ type: "ran", latencies, start, end: wallNow() });
}

async function connect(to: Extract<ToApps, { type: "connect" }>): Promise<void> {
  const { server_id, path, e2e } = to;
  const topic = `events:server:${server_id}`;
  const dispatcher = new Agent({ connections: to.tokens.length + 10 });
  calls.direct = to.tokens.map((token) => directCall(`${to.server_url}${path}`, dispatcher, token));
  const plain = await Promise.all(to.tokens.map((token) => join(to.bridge_url, topic, token)));
  calls.relay = plain.map((channel) => relayCall(channel, path));
  const sealing = await Promise.all(
    e2e.devices.map(async ({ token, device_id }) => ({ channel: await join(to.bridge_url, topic, token), device_id })),
  );
  calls.e2e_relay = sealing.map(({ channel, device_id }) =>
    sealedRelayCall(
      channel,
      { server_id, device_id, device_secret_key: e2e.device_secret_key, server_key: e2e.server_key },
      path,
    ),
  );
  send({ type: "connected" });
}

process.on("message", (message) => {
  const parsed = toApps.parse(message);
  if (answerMeter(parsed, meter, send) || answerSeams(parsed, send)) return;
  if (parsed.type === "run") return void run(callsOf(parsed.route).slice(0, parsed.apps), parsed.total);
  if (parsed.type === "connect") void connect(parsed);
});
process.on("disconnect", () => process.exit(0));
