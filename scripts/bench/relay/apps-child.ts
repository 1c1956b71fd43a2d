// Apps in their own process: per device, an official phoenix client joined to `events:server:<id>` (the relay) and
// an undici keep-alive request (direct HTTP), each app sending its next call when the last answered.
import { Socket, type Channel } from "phoenix";
import { Agent, request } from "undici";
import { WebSocket } from "ws";
import { phaseMeter, wallNow } from "../fanout/protocol.ts";
import { answerMeter, toApps, type Route } from "./protocol.ts";

type Call = () => Promise<void>;

const meter = phaseMeter();
const send = (message: unknown) => process.send!(message);
const calls: Record<Route, Call[]> = { direct: [], relay: [] };

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

function directCall(url: string, dispatcher: Agent, token: string): Call {
  return async () => {
    const response = await request(url, { headers: { authorization: `Bearer ${token}` }, dispatcher });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`direct status ${response.statusCode}`);
  };
}

function join(bridgeUrl: string, topic: string, token: string): Promise<Channel> {
  const socket = new Socket(bridgeUrl, { transport: WebSocket as unknown as new (endpoint: string) => object, authToken: token });
  socket.connect();
  const channel = socket.channel(topic, {});
  return new Promise((resolve, reject) => channel.join().receive("ok", () => resolve(channel)).receive("error", (e: unknown) => reject(new Error(JSON.stringify(e)))));
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

process.on("message", (message) => {
  const parsed = toApps.parse(message);
  if (answerMeter(parsed, meter, send)) return;
  if (parsed.type === "run") return void run(calls[parsed.route].slice(0, parsed.apps), parsed.total);
  if (parsed.type !== "connect") return;
  const dispatcher = new Agent({ connections: parsed.tokens.length + 10 });
  calls.direct = parsed.tokens.map((token) => directCall(`${parsed.server_url}${parsed.path}`, dispatcher, token));
  void Promise.all(parsed.tokens.map((token) => join(parsed.bridge_url, `events:server:${parsed.server_id}`, token))).then((channels) => {
    calls.relay = channels.map((channel) => relayCall(channel, parsed.path));
    send({ type: "connected" });
  });
});
process.on("disconnect", () => process.exit(0));
