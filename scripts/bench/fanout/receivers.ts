// Receivers in their own process: raw `ws` clients speaking the Phoenix protocol (join with a device token,
// heartbeat), counting deliveries and, in latency mode, the time from store commit (`sent_at`) to receipt.
import { WebSocket } from "ws";
import { phaseMeter, toReceivers, wallNow, type FromReceivers } from "./protocol.ts";
import { sentAtOfSealed, type ReceiverKey } from "./e2e.ts";

let mode: "latency" | "count" = "latency";
/** Set in e2e mode: pushes are sealed and latency needs them opened. */
let receiverKey: ReceiverKey | undefined;
let deliveries = 0;
let first = 0;
let last = 0;
let latencies: number[] = [];
const sockets: WebSocket[] = [];
const closes: Record<string, number> = {};
const meter = phaseMeter();
const send = (message: FromReceivers) => process.send!(message);

// Searched for as bytes: a string needle is re-encoded on every Buffer#indexOf call.
const EVENT_ID = Buffer.from('"event_id":"');
const SENT_AT = Buffer.from('"sent_at":');

/** Per socket: the newest event id seen in this phase; an id not above it is a duplicate or out of order. */
let lastIds = new Map<WebSocket, string>();
let misordered = 0;

function onFrame(ws: WebSocket, data: Buffer): void {
  // Heartbeat replies are ~60 bytes; events are ~300. Only events count.
  if (data.length < 120) return;
  const now = wallNow();
  deliveries++;
  if (first === 0) first = now;
  last = now;
  // A scan of the bytes instead of JSON.parse, the same for the bridge's frames and the raw baseline's: the
  // receivers must not be what the benchmark measures.
  const idAt = data.indexOf(EVENT_ID);
  if (idAt >= 0) {
    const id = data.toString("latin1", idAt + 12, idAt + 32);
    const previous = lastIds.get(ws);
    if (previous !== undefined && id <= previous) misordered++;
    lastIds.set(ws, id);
  }
  if (mode === "latency" && receiverKey) {
    const sentAt = sentAtOfSealed(data, receiverKey);
    if (sentAt !== undefined) latencies.push(now - sentAt);
  } else if (mode === "latency") {
    const at = data.indexOf(SENT_AT);
    if (at >= 0) latencies.push(now - Number.parseFloat(data.toString("latin1", at + 10, at + 40)));
  }
}

async function connect(url: string, topic: string, tokens: string[], join: boolean): Promise<void> {
  await Promise.all(
    tokens.map(
      (token) =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(`${url}/websocket?vsn=2.0.0&token=${encodeURIComponent(token)}`, { perMessageDeflate: false });
          ws.once("error", reject);
          ws.on("close", (code: number) => void (closes[String(code)] = (closes[String(code)] ?? 0) + 1));
          ws.once("open", () => {
            sockets.push(ws);
            if (!join) return resolve();
            ws.send(JSON.stringify(["1", "1", topic, "phx_join", {}]));
            ws.once("message", () => {
              ws.on("message", (data: Buffer) => onFrame(ws, data));
              resolve();
            });
          });
          if (!join) ws.on("message", (data: Buffer) => onFrame(ws, data));
        }),
    ),
  );
  setInterval(() => sockets.forEach((ws, i) => ws.readyState === ws.OPEN && ws.send(JSON.stringify([null, `hb${i}`, "phoenix", "heartbeat", {}]))), 20_000).unref();
  send({ type: "connected", sockets: sockets.length });
}

process.on("message", (message) => {
  const parsed = toReceivers.parse(message);
  if (parsed.type === "connect") {
    receiverKey = parsed.e2e;
    return void connect(parsed.url, parsed.topic, parsed.tokens, parsed.join);
  }
  if (parsed.type === "mode") {
    mode = parsed.mode;
    deliveries = 0;
    first = 0;
    last = 0;
    latencies = [];
    lastIds = new Map();
    misordered = 0;
    meter.reset();
    return;
  }
  send({ type: "report", deliveries, first, last, latencies, misordered, closes, stats: meter.read() });
});
process.on("disconnect", () => process.exit(0));
